//! A weight matrix as the models use it: a linear layer, and for the token table also a row
//! lookup. 8-bit (`int8`) for the float and 32-value block types; candle's quantized form
//! for the k-quants and for rows that are not whole blocks.

use super::int8::Int8Matrix;
use candle_core::quantized::{QMatMul, QTensor};
use candle_core::{Module, Result, Tensor};
use std::sync::Arc;

#[derive(Clone)]
pub(crate) enum Linear {
    Int8(Arc<Int8Matrix>),
    Candle(Arc<QTensor>, QMatMul),
}

impl Linear {
    pub(crate) fn new(qt: QTensor) -> Result<Self> {
        match Int8Matrix::from_qtensor(&qt)? {
            Some(m) => Ok(Self::Int8(Arc::new(m))),
            None => {
                let qt = Arc::new(qt);
                Ok(Self::Candle(qt.clone(), QMatMul::from_arc(qt)?))
            }
        }
    }

    pub(crate) fn forward(&self, x: &Tensor) -> Result<Tensor> {
        match self {
            Self::Int8(m) => m.forward(x),
            Self::Candle(_, m) => m.forward(x),
        }
    }

    /// Rows of the matrix by index (the token embedding).
    pub(crate) fn embedding(&self, ids: &Tensor) -> Result<Tensor> {
        match self {
            Self::Int8(m) => m.embedding(ids),
            Self::Candle(t, _) => t.embedding(ids),
        }
    }
}
