//! Weights as small integers with one f32 scale per 32 values, and the matrix kernels that
//! decoding and prompt reading spend nearly all their time in.
//!
//! Why not candle's `QMatMul`: in wasm its simd128 kernels convert two f16 scales per block
//! of 32 in software (the `half` crate has no hardware path there) and re-extend the
//! activation's bytes for every row; Q4_1/Q5_x have no simd128 kernel at all. Here the scales
//! are f32 from load, the activation is quantized and widened to i16 once per call, four
//! weight rows share each activation load, and while reading a prompt each unpacked block of
//! weights serves two activation rows.
//!
//! Q4_0 and Q4_1 keep the file's 4-bit codes (two per byte): a decode step streams every
//! weight once, so half the bytes is what makes it faster, and the model takes half the
//! memory. The other 32-value block types convert exactly to 8 bits: a block's integers fit
//! and keep the file's own scale, and Q4_1/Q5_1 keep their per-block minimum (`w = d·q + m`,
//! so a dot product adds `m · Σx` per block, as llama.cpp's Q8_1 path does; Q4_0's `d·(q−8)`
//! is the minimum `−8d`). Float weights are quantized to 8 bits (absolute maximum → 127).
//! Rows are converted one at a time, so no whole f32 copy of a large table ever exists.

use candle_core::quantized::k_quants::{
    BlockQ4_0, BlockQ4_1, BlockQ5_0, BlockQ5_1, BlockQ8_0, BlockQ8_1, GgmlType,
};
use candle_core::quantized::{GgmlDType, QTensor};
use candle_core::{bail, DType, Device, Result, Tensor};
use half::{bf16, f16};

/// Values per scale.
const BLOCK: usize = 32;
/// Rows of weights one activation row is multiplied with at a time.
const ROW_TILE: usize = 4;
/// Activation rows that reuse one tile of weight rows while it is in L1 (prefill).
const ACT_TILE: usize = 8;
/// Built with relaxed SIMD (scripts/build-worker.sh's second build, chosen at load where the
/// browser validates it): 4-bit codes (0..15) fit the 7-bit operand of
/// `i32x4.relaxed_dot_i8x16_i7x16_add`, so a block of 32 is two instructions against the
/// activation's signed bytes (in value order), where simd128 needs its i16 widening and four
/// `i32x4.dot_i16x8_s`. Every product and sum is exact in both, so only the order of the float
/// sums differs.
const RELAXED: bool = cfg!(all(target_arch = "wasm32", target_feature = "relaxed-simd"));

/// Where value `p` of a block's activation goes for 4-bit codes: the kernel unpacks a block
/// of 16 bytes, read as eight 16-bit lanes, into four vectors of the values at even
/// positions 0..16, at 16..32, then odd 1..16 and 17..32 (byte j holds value j in its low
/// nibble and j + 16 in its high one), and the activation is stored in that order.
const NIBBLE_ORDER: [usize; BLOCK] = {
    let mut order = [0; BLOCK];
    let mut p = 0;
    while p < 8 {
        order[p] = 2 * p;
        order[8 + p] = 2 * p + 16;
        order[16 + p] = 2 * p + 1;
        order[24 + p] = 2 * p + 17;
        p += 1;
    }
    order
};

/// The integers of a matrix.
enum Codes {
    /// One signed byte per value, in order.
    Bytes(Vec<i8>),
    /// Unsigned 4-bit values, 16 bytes per block of 32 as GGUF's Q4 types store them.
    Nibbles(Vec<u8>),
    /// The same bytes with four rows interleaved, for relaxed SIMD's dot product of four
    /// signed bytes (one i32 lane): rows `4g..4g + 4` take `2 · cols` bytes from `g · 2 · cols`,
    /// 64 per block; in a block, the 16 bytes at `16t` hold bytes `4t..4t + 4` of each of the
    /// four rows' GGUF block in turn (low nibbles: values `4t..4t + 4`, high: `16 + 4t..`). One
    /// load of four activation bytes repeated in every lane then gives each lane its own
    /// row's partial sum, so a block's four row sums come out in one vector, never summed
    /// across lanes. Only for matrices whose rows are whole groups of four.
    Nibbles4(Vec<u8>),
}

/// Whether 4-bit matrices are stored as [`Codes::Nibbles4`]: where its kernel runs (relaxed
/// SIMD), and natively, whose scalar kernel sums each row's blocks in the order it does (so
/// the native tests check its numbers exactly).
const INTERLEAVE: bool = RELAXED || cfg!(not(target_arch = "wasm32"));

/// A (rows × cols) matrix: `q[r·cols + c] · d[b] + m[b]` with `b = (r·cols + c) / 32`;
/// `m` is empty for symmetric types.
pub(crate) struct Int8Matrix {
    rows: usize,
    cols: usize,
    codes: Codes,
    d: Vec<f32>,
    m: Vec<f32>,
}

/// How a GGUF block type maps onto 8-bit rows.
#[derive(Clone, Copy)]
enum Source {
    /// Floats: quantized here.
    Float,
    /// `d · q`, with the f16 `d` in the block's first two bytes.
    Symmetric,
    /// `d · q + m`, with f16 `d` and `m` in the first four bytes.
    Affine,
}

/// Activation rows quantized to 8 bits (widened to i16), one scale per block, in the order
/// the matrix's codes need; `s` is each block's sum (`d · Σq`) for the minimum term.
struct Act {
    q: Vec<i16>,
    /// Instead of `q` for 4-bit codes under [`RELAXED`]: signed bytes in value order.
    q8: Vec<i8>,
    d: Vec<f32>,
    s: Vec<f32>,
}

impl Int8Matrix {
    /// Converts a 2-D GGUF tensor whose rows are whole blocks of 32; `None` otherwise (the
    /// caller keeps candle's form).
    pub(crate) fn from_qtensor(qt: &QTensor) -> Result<Option<Self>> {
        let Ok((rows, cols)) = qt.shape().dims2() else {
            return Ok(None);
        };
        if cols % BLOCK != 0 || cols % qt.dtype().block_size() != 0 {
            return Ok(None);
        }
        let data = qt.data()?;
        let m = match qt.dtype() {
            GgmlDType::F32 => convert::<f32>(&data, rows, cols, Source::Float),
            GgmlDType::F16 => convert::<f16>(&data, rows, cols, Source::Float),
            GgmlDType::BF16 => convert::<bf16>(&data, rows, cols, Source::Float),
            GgmlDType::Q4_0 => {
                nibbles::<BlockQ4_0>(&data, rows, cols, Source::Symmetric, INTERLEAVE)
            }
            GgmlDType::Q4_1 => nibbles::<BlockQ4_1>(&data, rows, cols, Source::Affine, INTERLEAVE),
            GgmlDType::Q5_0 => convert::<BlockQ5_0>(&data, rows, cols, Source::Symmetric),
            GgmlDType::Q5_1 => convert::<BlockQ5_1>(&data, rows, cols, Source::Affine),
            GgmlDType::Q8_0 => convert::<BlockQ8_0>(&data, rows, cols, Source::Symmetric),
            GgmlDType::Q8_1 => convert::<BlockQ8_1>(&data, rows, cols, Source::Symmetric),
            // The k-quants keep candle's kernels: they have simd128 ones, and their 16-value
            // sub-block scales do not survive one scale per 32 (Gemma 3's greedy tokens left
            // llama.cpp's two tokens earlier when they were converted).
            _ => return Ok(None),
        };
        m.map(Some)
    }

    /// `x` (…, cols) times the transpose of this matrix: (…, rows), as a linear layer.
    pub(crate) fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let dims = x.dims().to_vec();
        let Some((&k, lead)) = dims.split_last() else {
            bail!("a linear layer got a scalar");
        };
        if k != self.cols {
            bail!("a linear layer expects {} inputs, got {k}", self.cols);
        }
        let m: usize = lead.iter().product();
        let xs = x.to_dtype(DType::F32)?.flatten_all()?.to_vec1::<f32>()?;
        let mut out = vec![0f32; m * self.rows];
        self.matmul(&xs, m, &mut out);
        let mut shape = lead.to_vec();
        shape.push(self.rows);
        Tensor::from_vec(out, shape, x.device())
    }

    /// The rows named by `ids` (any shape), dequantized: (…ids, cols).
    pub(crate) fn embedding(&self, ids: &Tensor) -> Result<Tensor> {
        let mut shape = ids.dims().to_vec();
        let ids = ids.flatten_all()?.to_vec1::<u32>()?;
        let mut out = Vec::with_capacity(ids.len() * self.cols);
        let nb = self.cols / BLOCK;
        for &id in &ids {
            let r = id as usize;
            if r >= self.rows {
                bail!("token {r} is outside the vocabulary of {}", self.rows);
            }
            for b in 0..nb {
                let (s, m) = (self.d[r * nb + b], self.min(r * nb + b));
                out.extend(self.block_values(r, b).iter().map(|&v| v as f32 * s + m));
            }
        }
        shape.push(self.cols);
        Tensor::from_vec(out, shape, &Device::Cpu)
    }

    fn min(&self, block: usize) -> f32 {
        self.m.get(block).copied().unwrap_or(0.0)
    }

    /// Block `b` of row `r`'s integers, in value order.
    fn block_values(&self, r: usize, b: usize) -> [i16; BLOCK] {
        let mut v = [0i16; BLOCK];
        match &self.codes {
            Codes::Bytes(q) => {
                let at = r * self.cols + b * BLOCK;
                for (o, &q) in v.iter_mut().zip(&q[at..at + BLOCK]) {
                    *o = q as i16;
                }
            }
            Codes::Nibbles(q) => {
                let at = (r * self.cols + b * BLOCK) / 2;
                for (j, &byte) in q[at..at + BLOCK / 2].iter().enumerate() {
                    v[j] = (byte & 15) as i16;
                    v[j + 16] = (byte >> 4) as i16;
                }
            }
            Codes::Nibbles4(q) => {
                let at = (r / 4) * 2 * self.cols + b * 2 * BLOCK + 4 * (r % 4);
                for j in 0..BLOCK / 2 {
                    let byte = q[at + (j / 4) * 16 + j % 4];
                    v[j] = (byte & 15) as i16;
                    v[j + 16] = (byte >> 4) as i16;
                }
            }
        }
        v
    }

    /// Quantizes `m` activation rows in the order this matrix's codes need.
    fn quantize(&self, x: &[f32], m: usize) -> Act {
        let nb = self.cols / BLOCK;
        let bytes = RELAXED && matches!(self.codes, Codes::Nibbles(_) | Codes::Nibbles4(_));
        let mut act = Act {
            q: if bytes {
                Vec::new()
            } else {
                vec![0i16; m * self.cols]
            },
            q8: if bytes {
                vec![0i8; m * self.cols]
            } else {
                Vec::new()
            },
            d: vec![0f32; m * nb],
            s: vec![0f32; m * nb],
        };
        let mut natural = [0i16; BLOCK];
        for i in 0..m {
            let row = &x[i * self.cols..(i + 1) * self.cols];
            for (b, xb) in row.chunks_exact(BLOCK).enumerate() {
                let d = quantize_block(xb, &mut natural);
                let at = i * self.cols + b * BLOCK;
                match self.codes {
                    _ if bytes => {
                        for (o, &v) in act.q8[at..at + BLOCK].iter_mut().zip(&natural) {
                            *o = v as i8;
                        }
                    }
                    Codes::Bytes(_) | Codes::Nibbles4(_) => {
                        act.q[at..at + BLOCK].copy_from_slice(&natural)
                    }
                    Codes::Nibbles(_) => {
                        for (o, &from) in act.q[at..at + BLOCK].iter_mut().zip(&NIBBLE_ORDER) {
                            *o = natural[from];
                        }
                    }
                }
                let sum: i32 = natural.iter().map(|&v| v as i32).sum();
                act.d[i * nb + b] = d;
                act.s[i * nb + b] = sum as f32 * d;
            }
        }
        act
    }

    /// `out[i * rows + r] = Σ_c x[i * cols + c] · W[r, c]` for `m` activation rows.
    fn matmul(&self, x: &[f32], m: usize, out: &mut [f32]) {
        let nb = self.cols / BLOCK;
        let act = self.quantize(x, m);
        for a0 in (0..m).step_by(ACT_TILE) {
            let a1 = (a0 + ACT_TILE).min(m);
            let mut r = 0;
            while r < self.rows {
                let n = (self.rows - r).min(ROW_TILE);
                let mut i = a0;
                while i < a1 {
                    if n == ROW_TILE && i + 4 <= a1 {
                        let sums = self.tile::<4>(r, [i, i + 1, i + 2, i + 3], &act);
                        for (k, s) in sums.iter().enumerate() {
                            out[(i + k) * self.rows + r..][..ROW_TILE].copy_from_slice(s);
                        }
                        i += 4;
                    } else if n == ROW_TILE && i + 2 <= a1 {
                        let [s0, s1] = self.tile::<2>(r, [i, i + 1], &act);
                        out[i * self.rows + r..][..ROW_TILE].copy_from_slice(&s0);
                        out[(i + 1) * self.rows + r..][..ROW_TILE].copy_from_slice(&s1);
                        i += 2;
                    } else if n == ROW_TILE {
                        let [s0] = self.tile::<1>(r, [i], &act);
                        out[i * self.rows + r..][..ROW_TILE].copy_from_slice(&s0);
                        i += 1;
                    } else {
                        for j in 0..n {
                            out[i * self.rows + r + j] = self.dot1(r + j, i, &act);
                        }
                        i += 1;
                    }
                }
                if !self.m.is_empty() {
                    for i in a0..a1 {
                        let xs = &act.s[i * nb..(i + 1) * nb];
                        for j in 0..n {
                            let mins = &self.m[(r + j) * nb..(r + j + 1) * nb];
                            out[i * self.rows + r + j] += dot_f32(mins, xs);
                        }
                    }
                }
                r += n;
            }
        }
    }

    /// One row against activation row `i`, without the minimum term.
    fn dot1(&self, r: usize, i: usize, act: &Act) -> f32 {
        let nb = self.cols / BLOCK;
        let mut acc = 0f32;
        for b in 0..nb {
            let w = self.block_values(r, b);
            let at = i * self.cols + b * BLOCK;
            let sum: i32 = if !act.q8.is_empty() {
                w.iter()
                    .zip(&act.q8[at..at + BLOCK])
                    .map(|(&a, &b)| a as i32 * b as i32)
                    .sum()
            } else {
                let x = &act.q[at..at + BLOCK];
                match self.codes {
                    Codes::Bytes(_) | Codes::Nibbles4(_) => {
                        w.iter().zip(x).map(|(&a, &b)| a as i32 * b as i32).sum()
                    }
                    Codes::Nibbles(_) => NIBBLE_ORDER
                        .iter()
                        .zip(x)
                        .map(|(&from, &b)| w[from] as i32 * b as i32)
                        .sum(),
                }
            };
            acc += sum as f32 * (self.d[r * nb + b] * act.d[i * nb + b]);
        }
        acc
    }

    /// `ROW_TILE` rows from `r` against each of the activation rows `acts`, without the
    /// minimum term.
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    fn tile<const A: usize>(&self, r: usize, acts: [usize; A], act: &Act) -> [[f32; ROW_TILE]; A] {
        acts.map(|i| std::array::from_fn(|j| self.dot1(r + j, i, act)))
    }

    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    fn tile<const A: usize>(&self, r: usize, acts: [usize; A], act: &Act) -> [[f32; ROW_TILE]; A] {
        // SAFETY: `r + ROW_TILE <= rows` and every `acts` entry is below the activation's row
        // count (the caller's loops), so each block read below is inside its slice.
        unsafe {
            match &self.codes {
                Codes::Bytes(q) => simd::tile::<simd::Bytes, A>(
                    q.as_ptr() as *const u8,
                    self.cols,
                    &self.d,
                    r,
                    acts,
                    act,
                ),
                #[cfg(target_feature = "relaxed-simd")]
                Codes::Nibbles(q) => {
                    simd::tile_relaxed::<A>(q.as_ptr(), self.cols, &self.d, r, acts, act)
                }
                #[cfg(not(target_feature = "relaxed-simd"))]
                Codes::Nibbles(q) => {
                    simd::tile::<simd::Nibbles, A>(q.as_ptr(), self.cols, &self.d, r, acts, act)
                }
                #[cfg(target_feature = "relaxed-simd")]
                Codes::Nibbles4(q) => {
                    simd::tile4_relaxed::<A>(q.as_ptr(), self.cols, &self.d, r, acts, act)
                }
                // Never built without relaxed SIMD (see INTERLEAVE).
                #[cfg(not(target_feature = "relaxed-simd"))]
                Codes::Nibbles4(_) => {
                    acts.map(|i| std::array::from_fn(|j| self.dot1(r + j, i, act)))
                }
            }
        }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use super::{Act, BLOCK, ROW_TILE};
    use core::arch::wasm32::*;

    /// `acc + s·scale`: a block's exact integer sums `s` (one per lane), scaled into the f32
    /// accumulator. Every kernel adds its blocks this way, so they all round alike.
    #[inline(always)]
    fn add_scaled(acc: v128, s: v128, scale: f32) -> v128 {
        f32x4_add(acc, f32x4_mul(f32x4_convert_i32x4(s), f32x4_splat(scale)))
    }

    /// The four lanes' sum, added in lane order (the order the scalar kernel's tests expect).
    #[inline(always)]
    pub(super) fn lanes_sum(v: v128) -> f32 {
        f32x4_extract_lane::<0>(v)
            + f32x4_extract_lane::<1>(v)
            + f32x4_extract_lane::<2>(v)
            + f32x4_extract_lane::<3>(v)
    }

    /// Unpacks block `b` of row `r` into four i16x8 vectors, in the activation's order.
    pub(super) trait Unpack {
        /// # Safety
        /// Row `r`, block `b` must be inside the codes `base` points at.
        unsafe fn unpack(base: *const u8, cols: usize, r: usize, b: usize) -> [v128; 4];
    }

    pub(super) struct Bytes;
    #[cfg(not(target_feature = "relaxed-simd"))]
    pub(super) struct Nibbles;

    impl Unpack for Bytes {
        #[inline(always)]
        unsafe fn unpack(base: *const u8, cols: usize, r: usize, b: usize) -> [v128; 4] {
            let p = base.add(r * cols + b * BLOCK) as *const v128;
            let (lo, hi) = (v128_load(p), v128_load(p.add(1)));
            [
                i16x8_extend_low_i8x16(lo),
                i16x8_extend_high_i8x16(lo),
                i16x8_extend_low_i8x16(hi),
                i16x8_extend_high_i8x16(hi),
            ]
        }
    }

    #[cfg(not(target_feature = "relaxed-simd"))]
    impl Unpack for Nibbles {
        #[inline(always)]
        unsafe fn unpack(base: *const u8, cols: usize, r: usize, b: usize) -> [v128; 4] {
            let v = v128_load(base.add((r * cols + b * BLOCK) / 2) as *const v128);
            let m4 = i16x8_splat(0x0F);
            [
                v128_and(v, m4),
                v128_and(u16x8_shr(v, 4), m4),
                v128_and(u16x8_shr(v, 8), m4),
                u16x8_shr(v, 12),
            ]
        }
    }

    /// Per block: each weight row is unpacked once and multiplied with every activation row
    /// in `acts` (four i16 dot products each), then scaled by both blocks' scales.
    #[inline(always)]
    pub(super) unsafe fn tile<U: Unpack, const A: usize>(
        base: *const u8,
        cols: usize,
        d: &[f32],
        r: usize,
        acts: [usize; A],
        act: &Act,
    ) -> [[f32; ROW_TILE]; A] {
        let nb = cols / BLOCK;
        let mut acc = [[f32x4_splat(0.0); ROW_TILE]; A];
        let xq = act.q.as_ptr();
        for b in 0..nb {
            // `j` names the weight row (`r + j`) as well as its accumulator.
            #[allow(clippy::needless_range_loop)]
            for j in 0..ROW_TILE {
                let w = U::unpack(base, cols, r + j, b);
                let wd = *d.get_unchecked((r + j) * nb + b);
                for (a, &i) in acts.iter().enumerate() {
                    let x = xq.add(i * cols + b * BLOCK) as *const v128;
                    let s = i32x4_add(
                        i32x4_add(
                            i32x4_dot_i16x8(w[0], v128_load(x)),
                            i32x4_dot_i16x8(w[1], v128_load(x.add(1))),
                        ),
                        i32x4_add(
                            i32x4_dot_i16x8(w[2], v128_load(x.add(2))),
                            i32x4_dot_i16x8(w[3], v128_load(x.add(3))),
                        ),
                    );
                    acc[a][j] = add_scaled(acc[a][j], s, wd * *act.d.get_unchecked(i * nb + b));
                }
            }
        }
        acc.map(|row| row.map(lanes_sum))
    }

    /// [`tile`] for [`super::Codes::Nibbles4`] with relaxed SIMD: per block and group of
    /// four rows, four loads of weights and, per activation row, eight dot products whose
    /// lanes are the four rows; then one scale multiply for all four. `r` is a multiple of
    /// four. Each lane sums its row's blocks in order, exactly as the scalar `dot1` does.
    #[cfg(target_feature = "relaxed-simd")]
    #[inline(always)]
    pub(super) unsafe fn tile4_relaxed<const A: usize>(
        base: *const u8,
        cols: usize,
        d: &[f32],
        r: usize,
        acts: [usize; A],
        act: &Act,
    ) -> [[f32; ROW_TILE]; A] {
        let nb = cols / BLOCK;
        let mut acc = [f32x4_splat(0.0); A];
        let xq = act.q8.as_ptr();
        let group = base.add(r * cols / 2);
        let m4 = u8x16_splat(0x0F);
        for b in 0..nb {
            let w = group.add(b * 2 * BLOCK) as *const v128;
            let mut s = [i32x4_splat(0); A];
            for t in 0..4 {
                let v = v128_load(w.add(t));
                let (lo, hi) = (v128_and(v, m4), u8x16_shr(v, 4));
                for (a, &i) in acts.iter().enumerate() {
                    let x = xq.add(i * cols + b * BLOCK + 4 * t);
                    s[a] = i32x4_relaxed_dot_i8x16_i7x16_add(
                        v128_load32_splat(x as *const u32),
                        lo,
                        s[a],
                    );
                    s[a] = i32x4_relaxed_dot_i8x16_i7x16_add(
                        v128_load32_splat(x.add(16) as *const u32),
                        hi,
                        s[a],
                    );
                }
            }
            let wd = f32x4(
                *d.get_unchecked(r * nb + b),
                *d.get_unchecked((r + 1) * nb + b),
                *d.get_unchecked((r + 2) * nb + b),
                *d.get_unchecked((r + 3) * nb + b),
            );
            for (a, &i) in acts.iter().enumerate() {
                let scale = f32x4_mul(wd, f32x4_splat(*act.d.get_unchecked(i * nb + b)));
                acc[a] = f32x4_add(acc[a], f32x4_mul(f32x4_convert_i32x4(s[a]), scale));
            }
        }
        acc.map(|v| {
            [
                f32x4_extract_lane::<0>(v),
                f32x4_extract_lane::<1>(v),
                f32x4_extract_lane::<2>(v),
                f32x4_extract_lane::<3>(v),
            ]
        })
    }

    /// [`tile`] for 4-bit codes with relaxed SIMD: a block's 16 bytes give its values
    /// 0..16 (low nibbles) and 16..32 (high nibbles) as bytes 0..15, the 7-bit operand of
    /// the relaxed dot product, against the activation's signed bytes in value order.
    #[cfg(target_feature = "relaxed-simd")]
    #[inline(always)]
    pub(super) unsafe fn tile_relaxed<const A: usize>(
        base: *const u8,
        cols: usize,
        d: &[f32],
        r: usize,
        acts: [usize; A],
        act: &Act,
    ) -> [[f32; ROW_TILE]; A] {
        let nb = cols / BLOCK;
        let mut acc = [[f32x4_splat(0.0); ROW_TILE]; A];
        let xq = act.q8.as_ptr();
        let m4 = u8x16_splat(0x0F);
        let zero = i32x4_splat(0);
        for b in 0..nb {
            #[allow(clippy::needless_range_loop)]
            for j in 0..ROW_TILE {
                let v = v128_load(base.add(((r + j) * cols + b * BLOCK) / 2) as *const v128);
                let (lo, hi) = (v128_and(v, m4), u8x16_shr(v, 4));
                let wd = *d.get_unchecked((r + j) * nb + b);
                for (a, &i) in acts.iter().enumerate() {
                    let x = xq.add(i * cols + b * BLOCK) as *const v128;
                    let s = i32x4_relaxed_dot_i8x16_i7x16_add(
                        v128_load(x),
                        lo,
                        i32x4_relaxed_dot_i8x16_i7x16_add(v128_load(x.add(1)), hi, zero),
                    );
                    acc[a][j] = add_scaled(acc[a][j], s, wd * *act.d.get_unchecked(i * nb + b));
                }
            }
        }
        acc.map(|row| row.map(lanes_sum))
    }
}

/// `Σ a·b`: the minimum term, one multiply-add per block of 32 values, which scalar took a
/// tenth as long as the SIMD dot products it completes.
fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        use core::arch::wasm32::*;
        let n = a.len().min(b.len());
        let mut acc = f32x4_splat(0.0);
        let mut k = 0;
        // SAFETY: k + 4 <= n, and both slices hold at least n values.
        unsafe {
            while k + 4 <= n {
                let x = v128_load(a.as_ptr().add(k) as *const v128);
                let y = v128_load(b.as_ptr().add(k) as *const v128);
                acc = f32x4_add(acc, f32x4_mul(x, y));
                k += 4;
            }
        }
        let mut sum = simd::lanes_sum(acc);
        for (x, y) in a[k..n].iter().zip(&b[k..n]) {
            sum += x * y;
        }
        sum
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }
}

/// Quantizes one block to 8 bits (the absolute maximum maps to 127); returns its scale.
///
/// Written for wasm: `f32::max` and `f32::round` are libm calls there (their NaN and tie
/// rules differ from the instructions), and they took a tenth of prompt reading. A compare
/// and [`round_half_away`] are a few instructions. Halves must round away from zero as
/// llama.cpp's do: they are common (activations are often multiples of a weight's scale),
/// and rounding them to even moved SmolLM2's and Gemma 3's greedy tokens off llama.cpp's.
fn quantize_block(x: &[f32], q: &mut [i16; BLOCK]) -> f32 {
    let amax = x.iter().fold(0f32, |m, v| {
        let a = v.abs();
        if a > m {
            a
        } else {
            m
        }
    });
    let scale = amax / 127.0;
    let inv = if scale > 0.0 { 1.0 / scale } else { 0.0 };
    for (q, v) in q.iter_mut().zip(x) {
        *q = round_half_away(v * inv) as i16;
    }
    scale
}

/// `f32::round` (halves away from zero) from `trunc`, `abs` and `copysign`, which are wasm
/// instructions; `r − trunc(r)` is exact, so this agrees with `round` for every input.
#[inline(always)]
fn round_half_away(r: f32) -> f32 {
    let t = r.trunc();
    if (r - t).abs() >= 0.5 {
        t + 1f32.copysign(r)
    } else {
        t
    }
}

/// Quantizes one row to 8 bits per value, one scale per 32.
fn quantize_row(x: &[f32], qs: &mut [i16], d: &mut [f32]) {
    let mut q = [0i16; BLOCK];
    for ((xb, qb), s) in x
        .chunks_exact(BLOCK)
        .zip(qs.chunks_exact_mut(BLOCK))
        .zip(d.iter_mut())
    {
        *s = quantize_block(xb, &mut q);
        qb.copy_from_slice(&q);
    }
}

/// Keeps a Q4_0/Q4_1 tensor's 4-bit codes as they are, with f32 scales and minimums.
fn nibbles<T: GgmlType>(
    data: &[u8],
    rows: usize,
    cols: usize,
    src: Source,
    interleave: bool,
) -> Result<Int8Matrix> {
    let size = std::mem::size_of::<T>();
    let blocks = rows * cols / BLOCK;
    if T::BLCK_SIZE != BLOCK || data.len() != blocks * size {
        bail!(
            "a weight has {} bytes where {} were expected",
            data.len(),
            blocks * size
        );
    }
    // Q4_0 is {d: f16, qs: [u8; 16]}, Q4_1 is {d: f16, m: f16, qs: [u8; 16]}.
    let codes_at = size - BLOCK / 2;
    let mut q = Vec::with_capacity(blocks * BLOCK / 2);
    let mut d = Vec::with_capacity(blocks);
    let mut m = Vec::with_capacity(blocks);
    for block in data.chunks_exact(size) {
        let scale = f16::from_le_bytes([block[0], block[1]]).to_f32();
        let min = match src {
            Source::Affine => f16::from_le_bytes([block[2], block[3]]).to_f32(),
            // d·(q − 8) = d·q − 8d.
            _ => -8.0 * scale,
        };
        q.extend_from_slice(&block[codes_at..]);
        d.push(scale);
        m.push(min);
    }
    let codes = if interleave && rows.is_multiple_of(4) {
        Codes::Nibbles4(interleave4(&q, rows, cols))
    } else {
        Codes::Nibbles(q)
    };
    Ok(Int8Matrix {
        rows,
        cols,
        codes,
        d,
        m,
    })
}

/// [`Codes::Nibbles`] bytes (`rows` a multiple of four) in [`Codes::Nibbles4`]'s order.
fn interleave4(q: &[u8], rows: usize, cols: usize) -> Vec<u8> {
    let row_bytes = cols / 2;
    let half = BLOCK / 2;
    let mut out = Vec::with_capacity(q.len());
    for g in (0..rows).step_by(4) {
        for b in 0..cols / BLOCK {
            for t in 0..4 {
                for k in 0..4 {
                    let at = (g + k) * row_bytes + b * half + 4 * t;
                    out.extend_from_slice(&q[at..at + 4]);
                }
            }
        }
    }
    out
}

/// Converts `data` (rows of `T` blocks) one row at a time into 8-bit rows.
fn convert<T: GgmlType>(data: &[u8], rows: usize, cols: usize, src: Source) -> Result<Int8Matrix> {
    let size = std::mem::size_of::<T>();
    let per_row = cols / T::BLCK_SIZE;
    let need = rows * per_row * size;
    if data.len() != need {
        bail!(
            "a weight has {} bytes where {need} were expected",
            data.len()
        );
    }
    // The bytes are candle's own Vec<T>, so they are aligned for T; a copy covers the
    // case where they are not rather than trusting it.
    // SAFETY: every GgmlType is plain old data (integers and f16), valid for any bytes.
    let (head, blocks, tail) = unsafe { data.align_to::<T>() };
    let copied: Vec<T>;
    let blocks: &[T] = if head.is_empty() && tail.is_empty() {
        blocks
    } else {
        copied = data
            .chunks_exact(size)
            // SAFETY: as above; read_unaligned copes with any address.
            .map(|c| unsafe { std::ptr::read_unaligned(c.as_ptr() as *const T) })
            .collect();
        &copied
    };
    let half_at = |block: usize, offset: usize| {
        let at = block * size + offset;
        f16::from_le_bytes([data[at], data[at + 1]]).to_f32()
    };
    let nb = cols / BLOCK;
    let mut qs = vec![0i8; rows * cols];
    let mut d = vec![0f32; rows * nb];
    let mut m = match src {
        Source::Affine => vec![0f32; rows * nb],
        _ => Vec::new(),
    };
    let mut f = vec![0f32; cols];
    let mut q16 = vec![0i16; cols];
    for r in 0..rows {
        T::to_float(&blocks[r * per_row..(r + 1) * per_row], &mut f);
        let row_d = &mut d[r * nb..(r + 1) * nb];
        match src {
            Source::Float => quantize_row(&f, &mut q16, row_d),
            Source::Symmetric | Source::Affine => {
                // Block types here are 32 values each, so block b of the row is T's block
                // r·nb + b; its integers are recovered exactly from the dequantized values.
                for (b, (fb, qb)) in f
                    .chunks_exact(BLOCK)
                    .zip(q16.chunks_exact_mut(BLOCK))
                    .enumerate()
                {
                    let block = r * nb + b;
                    let scale = half_at(block, 0);
                    let min = match src {
                        Source::Affine => half_at(block, 2),
                        _ => 0.0,
                    };
                    let inv = if scale != 0.0 { 1.0 / scale } else { 0.0 };
                    for (q, v) in qb.iter_mut().zip(fb) {
                        *q = ((v - min) * inv).round().clamp(-128.0, 127.0) as i16;
                    }
                    row_d[b] = scale;
                    if let Source::Affine = src {
                        m[block] = min;
                    }
                }
            }
        }
        for (o, &v) in qs[r * cols..(r + 1) * cols].iter_mut().zip(&q16) {
            *o = v as i8;
        }
    }
    Ok(Int8Matrix {
        rows,
        cols,
        codes: Codes::Bytes(qs),
        d,
        m,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(rows: usize, cols: usize) -> Vec<f32> {
        (0..rows * cols)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 17.0)
            .collect()
    }

    #[test]
    fn forward_matches_f32_matmul_within_quantization_error() {
        let (rows, cols) = (7, 64);
        let w = matrix(rows, cols);
        let qt = QTensor::quantize(
            &Tensor::from_vec(w.clone(), (rows, cols), &Device::Cpu).unwrap(),
            GgmlDType::F32,
        )
        .unwrap();
        let m = Int8Matrix::from_qtensor(&qt).unwrap().unwrap();
        let x: Vec<f32> = (0..2 * cols).map(|i| (i as f32 * 0.31).sin()).collect();
        let got = m
            .forward(&Tensor::from_vec(x.clone(), (1, 2, cols), &Device::Cpu).unwrap())
            .unwrap();
        assert_eq!(got.dims(), &[1, 2, rows]);
        let got = got.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        for i in 0..2 {
            for r in 0..rows {
                let want: f32 = (0..cols).map(|c| x[i * cols + c] * w[r * cols + c]).sum();
                let diff = (got[i * rows + r] - want).abs();
                assert!(
                    diff < 0.05 * (1.0 + want.abs()),
                    "row {r}: {} vs {want}",
                    got[i * rows + r]
                );
            }
        }
    }

    #[test]
    fn four_bit_and_eight_bit_matrices_multiply_as_their_dequantized_floats() {
        // 7 rows: one tile of four and three rows alone (4-bit codes as the file has them);
        // 8 rows: four-row groups (interleaved 4-bit codes); 7 activation rows: four, two
        // and one at a time, so every kernel path runs.
        for rows in [7, 8] {
            four_bit_and_eight_bit_matrices_multiply_with(rows);
        }
    }

    fn four_bit_and_eight_bit_matrices_multiply_with(rows: usize) {
        let (cols, m) = (96, 7);
        let w = matrix(rows, cols);
        let x: Vec<f32> = (0..m * cols).map(|i| (i as f32 * 0.37).sin()).collect();
        // The activation as the kernels see it (8 bits per value, a scale per block), so the
        // comparison is exact up to the order of float sums.
        let mut x8 = Vec::with_capacity(x.len());
        for xb in x.chunks_exact(BLOCK) {
            let mut q = [0i16; BLOCK];
            let d = quantize_block(xb, &mut q);
            x8.extend(q.iter().map(|&q| q as f32 * d));
        }
        for dtype in [
            GgmlDType::Q4_0,
            GgmlDType::Q4_1,
            GgmlDType::Q5_1,
            GgmlDType::Q8_0,
        ] {
            let qt = QTensor::quantize(
                &Tensor::from_vec(w.clone(), (rows, cols), &Device::Cpu).unwrap(),
                dtype,
            )
            .unwrap();
            let deq = qt
                .dequantize(&Device::Cpu)
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1::<f32>()
                .unwrap();
            let mat = Int8Matrix::from_qtensor(&qt).unwrap().unwrap();
            let got = mat
                .forward(&Tensor::from_vec(x.clone(), (m, cols), &Device::Cpu).unwrap())
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1::<f32>()
                .unwrap();
            for i in 0..m {
                for r in 0..rows {
                    let want: f32 = (0..cols)
                        .map(|c| x8[i * cols + c] * deq[r * cols + c])
                        .sum();
                    let g = got[i * rows + r];
                    assert!(
                        (g - want).abs() < 1e-4 * (1.0 + want.abs()),
                        "{dtype:?} act {i} row {r}: {g} vs {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn rounding_agrees_with_f32_round() {
        for r in [
            0.0f32,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            0.49999997,
            -0.49999997,
            126.5,
            -127.5,
            3.7,
            -3.2,
            8388607.5,
        ] {
            assert_eq!(round_half_away(r), r.round(), "{r}");
        }
    }

    #[test]
    fn embedding_returns_the_dequantized_rows_and_refuses_unknown_ids() {
        let (rows, cols) = (5, 32);
        let w = matrix(rows, cols);
        let qt = QTensor::quantize(
            &Tensor::from_vec(w.clone(), (rows, cols), &Device::Cpu).unwrap(),
            GgmlDType::Q8_0,
        )
        .unwrap();
        let m = Int8Matrix::from_qtensor(&qt).unwrap().unwrap();
        let ids = Tensor::new(&[[3u32, 0]], &Device::Cpu).unwrap();
        let e = m.embedding(&ids).unwrap();
        assert_eq!(e.dims(), &[1, 2, cols]);
        let e = e.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        for c in 0..cols {
            assert!((e[c] - w[3 * cols + c]).abs() < 0.05, "col {c}");
            assert!((e[cols + c] - w[c]).abs() < 0.05, "col {c}");
        }
        let bad = Tensor::new(&[9u32], &Device::Cpu).unwrap();
        assert!(m.embedding(&bad).is_err());
    }

    #[test]
    fn block_types_convert_exactly() {
        for rows in [3, 8] {
            block_types_convert_exactly_with(rows);
        }
    }

    fn block_types_convert_exactly_with(rows: usize) {
        let cols = 64;
        let w = matrix(rows, cols);
        for dtype in [
            GgmlDType::Q4_0,
            GgmlDType::Q4_1,
            GgmlDType::Q5_0,
            GgmlDType::Q5_1,
            GgmlDType::Q8_0,
        ] {
            let qt = QTensor::quantize(
                &Tensor::from_vec(w.clone(), (rows, cols), &Device::Cpu).unwrap(),
                dtype,
            )
            .unwrap();
            let want = qt
                .dequantize(&Device::Cpu)
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1::<f32>()
                .unwrap();
            let m = Int8Matrix::from_qtensor(&qt).unwrap().unwrap();
            let ids: Vec<u32> = (0..rows as u32).collect();
            let ids = Tensor::new(ids.as_slice(), &Device::Cpu).unwrap();
            let got = m
                .embedding(&ids)
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1::<f32>()
                .unwrap();
            for (i, (g, e)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (g - e).abs() <= 1e-5 * (1.0 + e.abs()),
                    "{dtype:?} value {i}: {g} vs {e}"
                );
            }
        }
    }

    #[test]
    fn rows_that_are_not_whole_blocks_stay_with_candle() {
        let qt = QTensor::quantize(
            &Tensor::zeros((2, 48), DType::F32, &Device::Cpu).unwrap(),
            GgmlDType::F32,
        )
        .unwrap();
        assert!(Int8Matrix::from_qtensor(&qt).unwrap().is_none());
    }
}
