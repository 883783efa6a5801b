//! Pieces both model files share: RoPE tables built once per model at the context the user
//! set, a growing KV cache that can keep only a sliding window, and causal masks.
//!
//! Why not upstream's: candle's quantized Gemma 3 builds sin/cos tables for 131,072
//! positions in every layer (3.9 GB of wasm's 4 GiB), and its Llama caps positions at 4,096.
//! Here the tables are sized to the context cap and shared (a `Tensor` clone is a reference).

use candle_core::{DType, Device, Result, Tensor, D};

/// Sine and cosine of every position up to the context cap, for one frequency base.
#[derive(Debug, Clone)]
pub(crate) struct RopeTables {
    pub(crate) cos: Tensor,
    pub(crate) sin: Tensor,
}

impl RopeTables {
    /// `dim` is the number of rotated dimensions per head; `positions` the context cap.
    pub(crate) fn new(
        dim: usize,
        freq_base: f32,
        positions: usize,
        device: &Device,
    ) -> Result<Self> {
        let theta: Vec<f32> = (0..dim)
            .step_by(2)
            .map(|i| 1f32 / freq_base.powf(i as f32 / dim as f32))
            .collect();
        let theta = Tensor::new(theta.as_slice(), device)?;
        let idx_theta = Tensor::arange(0, positions as u32, device)?
            .to_dtype(DType::F32)?
            .reshape((positions, 1))?
            .matmul(&theta.reshape((1, theta.elem_count()))?)?;
        Ok(Self {
            cos: idx_theta.cos()?,
            sin: idx_theta.sin()?,
        })
    }

    /// Rotates `x` (batch, heads, seq, head_dim) placed at positions `start..start + seq`.
    /// `interleaved` pairs (2i, 2i+1) as Llama does; otherwise (i, i + d/2) as NeoX/Gemma.
    pub(crate) fn apply(&self, x: &Tensor, start: usize, interleaved: bool) -> Result<Tensor> {
        let (_b, _h, seq_len, _d) = x.dims4()?;
        let cos = self.cos.narrow(0, start, seq_len)?;
        let sin = self.sin.narrow(0, start, seq_len)?;
        let x = x.contiguous()?;
        if interleaved {
            candle_nn::rotary_emb::rope_i(&x, &cos, &sin)
        } else {
            candle_nn::rotary_emb::rope(&x, &cos, &sin)
        }
    }
}

/// Keys and values seen so far in one layer, in buffers that grow by doubling so a decode
/// step writes one position instead of copying the whole cache (`Tensor::cat` did, in every
/// layer, for every token). With a window, what no later query can see is dropped when the
/// buffer is next regrown.
#[derive(Debug, Clone, Default)]
pub(crate) struct KvCache {
    /// (batch, kv_heads, capacity, head_dim) each.
    buf: Option<(Tensor, Tensor)>,
    len: usize,
    /// Absolute position of the first cached entry.
    start: usize,
}

/// The smallest buffer, in positions.
const KV_MIN_CAPACITY: usize = 64;

impl KvCache {
    /// Appends this step's keys/values (batch, kv_heads, seq, head_dim) and returns all the
    /// keys/values the step attends to, with the absolute position of the first one. The
    /// returned tensors are views of the buffers (no copy).
    pub(crate) fn append(
        &mut self,
        k: Tensor,
        v: Tensor,
        window: Option<usize>,
    ) -> Result<(Tensor, Tensor, usize)> {
        let k = k.contiguous()?;
        let v = v.contiguous()?;
        let seq = k.dim(2)?;
        let capacity = match &self.buf {
            Some((kb, _)) => kb.dim(2)?,
            None => 0,
        };
        if self.len + seq > capacity {
            // The earliest query of this step is at `start + len`; with a window it never
            // looks further back than `window - 1` positions.
            let drop = match window {
                Some(w) if self.len >= w => self.len + 1 - w,
                _ => 0,
            };
            let kept = self.len - drop;
            let capacity = ((kept + seq) * 2).max(KV_MIN_CAPACITY);
            let (b, h, _, d) = k.dims4()?;
            let kb = Tensor::zeros((b, h, capacity, d), k.dtype(), k.device())?;
            let vb = Tensor::zeros((b, h, capacity, d), v.dtype(), v.device())?;
            if let Some((ok, ov)) = &self.buf {
                if kept > 0 {
                    kb.slice_set(&ok.narrow(2, drop, kept)?.contiguous()?, 2, 0)?;
                    vb.slice_set(&ov.narrow(2, drop, kept)?.contiguous()?, 2, 0)?;
                }
            }
            self.buf = Some((kb, vb));
            self.len = kept;
            self.start += drop;
        }
        let Some((kb, vb)) = &self.buf else {
            candle_core::bail!("the key/value cache has no buffer");
        };
        kb.slice_set(&k, 2, self.len)?;
        vb.slice_set(&v, 2, self.len)?;
        self.len += seq;
        Ok((
            kb.narrow(2, 0, self.len)?,
            vb.narrow(2, 0, self.len)?,
            self.start,
        ))
    }

    pub(crate) fn clear(&mut self) {
        *self = Self::default();
    }

    /// Keeps the positions before `end` (absolute) and forgets the rest, so a request that
    /// shares a prefix with the previous one reads only what differs. `false`, with nothing
    /// changed, when the cache cannot be cut there: `end` is past what it holds, or, with a
    /// window, a query at `end` would need keys already dropped.
    pub(crate) fn truncate(&mut self, end: usize, window: Option<usize>) -> bool {
        if !self.can_truncate(end, window) {
            return false;
        }
        self.len = end - self.start;
        true
    }

    pub(crate) fn can_truncate(&self, end: usize, window: Option<usize>) -> bool {
        // The first query after the cut is at `end`; it sees keys from `end + 1 - window`.
        let needed_from = window.map_or(0, |w| (end + 1).saturating_sub(w));
        end <= self.end() && self.start <= needed_from
    }

    /// Positions cached, counted from 0 (dropped window positions included).
    pub(crate) fn end(&self) -> usize {
        self.start + self.len
    }
}

/// An additive mask (0 visible, -inf hidden) of shape (q_len, kv_len) for queries at
/// `q_start..` over keys at `kv_start..`, or `None` when every key is visible (the usual
/// one-token decode step). A key at j is visible to a query at i when j ≤ i and, with a
/// sliding window, i − j < window (llama.cpp's rule).
pub(crate) fn causal_mask(
    q_start: usize,
    q_len: usize,
    kv_start: usize,
    kv_len: usize,
    window: Option<usize>,
    device: &Device,
) -> Result<Option<Tensor>> {
    let visible = |i: usize, j: usize| j <= i && window.is_none_or(|w| i - j < w);
    let mut all = true;
    let mut mask = Vec::with_capacity(q_len * kv_len);
    for qi in 0..q_len {
        let i = q_start + qi;
        for kj in 0..kv_len {
            let ok = visible(i, kv_start + kj);
            all &= ok;
            mask.push(if ok { 0f32 } else { f32::NEG_INFINITY });
        }
    }
    if all {
        return Ok(None);
    }
    Tensor::from_vec(mask, (q_len, kv_len), device).map(Some)
}

/// Scaled dot-product attention with grouped KV heads: q (b, heads, q_len, d), k/v
/// (b, kv_heads, kv_len, d), possibly views into the cache. Returns (b, q_len, heads * d).
///
/// The query heads that share a KV head are stacked as extra query rows, so keys and values
/// are never repeated per head (candle's `repeat_kv` copied the whole cache every step).
pub(crate) fn attend(
    q: &Tensor,
    k: Tensor,
    v: Tensor,
    mask: Option<&Tensor>,
    scale: f64,
) -> Result<Tensor> {
    let (b, n_head, q_len, d) = q.dims4()?;
    let n_kv = k.dim(1)?;
    let kv_len = k.dim(2)?;
    let rep = n_head / n_kv;
    let q = q.contiguous()?.reshape((b, n_kv, rep * q_len, d))?;
    let att = (q.matmul(&k.t()?)? * scale)?;
    let att = match mask {
        Some(m) => att
            .reshape((b, n_kv, rep, q_len, kv_len))?
            .broadcast_add(m)?
            .reshape((b, n_kv, rep * q_len, kv_len))?,
        None => att,
    };
    let att = candle_nn::ops::softmax_last_dim(&att)?;
    let y = att.matmul(&v)?;
    y.reshape((b, n_head, q_len, d))?
        .transpose(1, 2)?
        .reshape((b, q_len, n_head * d))
}

/// The logits of the last position as a flat vector.
pub(crate) fn last_logits(logits: &Tensor) -> Result<Tensor> {
    logits
        .squeeze(0)?
        .to_dtype(DType::F32)?
        .flatten_to(D::Minus1)
}
