//! Weights as 8-bit integers with one f32 scale per 32 values, and the matrix-vector kernel
//! that decoding spends nearly all its time in.
//!
//! Why not candle's `QMatMul`: in wasm its simd128 kernels convert two f16 scales per block
//! of 32 in software (the `half` crate has no hardware path there) and re-extend the
//! activation's bytes for every row; Q4_1/Q5_x have no simd128 kernel at all. Here the scales
//! are f32 from load, the activation is quantized and widened to i16 once per call, and four
//! rows share each activation load. SmolLM2-135M decodes about twice as fast.
//!
//! The 32-value block types convert exactly: a block's integers fit in 8 bits and keep the
//! file's own scale, and Q4_1/Q5_1 keep their per-block minimum (`w = d·q + m`, so a dot
//! product adds `m · Σx` per block, as llama.cpp's Q8_1 path does). Float weights are
//! quantized to 8 bits (absolute maximum → 127). Rows are converted one at a time, so no
//! whole f32 copy of a large table ever exists.

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

/// A (rows × cols) matrix: `qs[r·cols + c] · d[b] + m[b]` with `b = (r·cols + c) / 32`;
/// `m` is empty for symmetric types.
pub(crate) struct Int8Matrix {
    rows: usize,
    cols: usize,
    qs: Vec<i8>,
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
            GgmlDType::Q4_0 => convert::<BlockQ4_0>(&data, rows, cols, Source::Symmetric),
            GgmlDType::Q4_1 => convert::<BlockQ4_1>(&data, rows, cols, Source::Affine),
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
        for &id in &ids {
            let r = id as usize;
            if r >= self.rows {
                bail!("token {r} is outside the vocabulary of {}", self.rows);
            }
            let nb = self.cols / BLOCK;
            let qs = &self.qs[r * self.cols..(r + 1) * self.cols];
            for (b, q) in qs.chunks_exact(BLOCK).enumerate() {
                let (s, m) = (self.d[r * nb + b], self.min(r * nb + b));
                out.extend(q.iter().map(|&v| v as f32 * s + m));
            }
        }
        shape.push(self.cols);
        Tensor::from_vec(out, shape, &Device::Cpu)
    }

    fn min(&self, block: usize) -> f32 {
        self.m.get(block).copied().unwrap_or(0.0)
    }

    /// `out[i * rows + r] = Σ_c x[i * cols + c] · W[r, c]` for `m` activation rows.
    fn matmul(&self, x: &[f32], m: usize, out: &mut [f32]) {
        let nb = self.cols / BLOCK;
        let mut xq = vec![0i16; m * self.cols];
        let mut xd = vec![0f32; m * nb];
        // Per block, the activation's sum (xd · Σq), for the minimum term of affine types.
        let mut xs = vec![0f32; m * nb];
        for i in 0..m {
            let q = &mut xq[i * self.cols..(i + 1) * self.cols];
            quantize_row(
                &x[i * self.cols..(i + 1) * self.cols],
                q,
                &mut xd[i * nb..(i + 1) * nb],
            );
            for (b, block) in q.chunks_exact(BLOCK).enumerate() {
                let sum: i32 = block.iter().map(|&v| v as i32).sum();
                xs[i * nb + b] = sum as f32 * xd[i * nb + b];
            }
        }
        for a0 in (0..m).step_by(ACT_TILE) {
            let a1 = (a0 + ACT_TILE).min(m);
            let mut r = 0;
            while r < self.rows {
                let n = (self.rows - r).min(ROW_TILE);
                for i in a0..a1 {
                    let xq = &xq[i * self.cols..(i + 1) * self.cols];
                    let xd = &xd[i * nb..(i + 1) * nb];
                    let dst = &mut out[i * self.rows + r..i * self.rows + r + n];
                    if n == ROW_TILE {
                        let sums = self.dot4(r, xq, xd);
                        dst.copy_from_slice(&sums);
                    } else {
                        for (j, o) in dst.iter_mut().enumerate() {
                            *o = self.dot1(r + j, xq, xd);
                        }
                    }
                    if !self.m.is_empty() {
                        let xs = &xs[i * nb..(i + 1) * nb];
                        for (j, o) in dst.iter_mut().enumerate() {
                            let mins = &self.m[(r + j) * nb..(r + j + 1) * nb];
                            *o += mins.iter().zip(xs).map(|(a, b)| a * b).sum::<f32>();
                        }
                    }
                }
                r += n;
            }
        }
    }

    fn row(&self, r: usize) -> (&[i8], &[f32]) {
        let nb = self.cols / BLOCK;
        (
            &self.qs[r * self.cols..(r + 1) * self.cols],
            &self.d[r * nb..(r + 1) * nb],
        )
    }

    fn dot1(&self, r: usize, xq: &[i16], xd: &[f32]) -> f32 {
        let (w, wd) = self.row(r);
        let mut acc = 0f32;
        for ((wb, xb), (s, t)) in w
            .chunks_exact(BLOCK)
            .zip(xq.chunks_exact(BLOCK))
            .zip(wd.iter().zip(xd))
        {
            let sum: i32 = wb.iter().zip(xb).map(|(&a, &b)| a as i32 * b as i32).sum();
            acc += sum as f32 * (s * t);
        }
        acc
    }

    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    fn dot4(&self, r: usize, xq: &[i16], xd: &[f32]) -> [f32; ROW_TILE] {
        [
            self.dot1(r, xq, xd),
            self.dot1(r + 1, xq, xd),
            self.dot1(r + 2, xq, xd),
            self.dot1(r + 3, xq, xd),
        ]
    }

    /// Four rows against one activation row. Per block of 32: the activation's four i16x8
    /// vectors are loaded once; each row costs two loads, four widenings and four i16 dot
    /// products, and one f32 multiply-add with its precomputed scale.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    fn dot4(&self, r: usize, xq: &[i16], xd: &[f32]) -> [f32; ROW_TILE] {
        use core::arch::wasm32::*;
        let nb = self.cols / BLOCK;
        let rows = [
            self.row(r),
            self.row(r + 1),
            self.row(r + 2),
            self.row(r + 3),
        ];
        // The slices were cut to `cols` values and `nb` scales above; every pointer below
        // stays inside them (b < nb, offsets < BLOCK), and v128_load has no alignment needs.
        unsafe {
            let mut acc = [f32x4_splat(0.0); ROW_TILE];
            let xp = xq.as_ptr();
            for b in 0..nb {
                let x = xp.add(b * BLOCK) as *const v128;
                let (x0, x1, x2, x3) = (
                    v128_load(x),
                    v128_load(x.add(1)),
                    v128_load(x.add(2)),
                    v128_load(x.add(3)),
                );
                let xs = *xd.get_unchecked(b);
                for (j, (w, wd)) in rows.iter().enumerate() {
                    let p = w.as_ptr().add(b * BLOCK) as *const v128;
                    let lo = v128_load(p);
                    let hi = v128_load(p.add(1));
                    let s = i32x4_add(
                        i32x4_add(
                            i32x4_dot_i16x8(i16x8_extend_low_i8x16(lo), x0),
                            i32x4_dot_i16x8(i16x8_extend_high_i8x16(lo), x1),
                        ),
                        i32x4_add(
                            i32x4_dot_i16x8(i16x8_extend_low_i8x16(hi), x2),
                            i32x4_dot_i16x8(i16x8_extend_high_i8x16(hi), x3),
                        ),
                    );
                    let scale = f32x4_splat(*wd.get_unchecked(b) * xs);
                    acc[j] = f32x4_add(acc[j], f32x4_mul(f32x4_convert_i32x4(s), scale));
                }
            }
            acc.map(|a| {
                f32x4_extract_lane::<0>(a)
                    + f32x4_extract_lane::<1>(a)
                    + f32x4_extract_lane::<2>(a)
                    + f32x4_extract_lane::<3>(a)
            })
        }
    }
}

/// Quantizes one row to 8 bits per value, one scale per 32 (the absolute maximum maps to 127).
fn quantize_row(x: &[f32], qs: &mut [i16], d: &mut [f32]) {
    for ((xb, qb), s) in x
        .chunks_exact(BLOCK)
        .zip(qs.chunks_exact_mut(BLOCK))
        .zip(d.iter_mut())
    {
        let amax = xb.iter().fold(0f32, |m, v| m.max(v.abs()));
        let scale = amax / 127.0;
        let inv = if scale > 0.0 { 1.0 / scale } else { 0.0 };
        for (q, v) in qb.iter_mut().zip(xb) {
            *q = (v * inv).round() as i16;
        }
        *s = scale;
    }
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
        qs,
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
        let (rows, cols) = (3, 64);
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
            let ids = Tensor::new(&[0u32, 1, 2], &Device::Cpu).unwrap();
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
