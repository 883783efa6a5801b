//! The GGUF header reader: magic, version, metadata and tensor descriptions, over whatever
//! prefix of the file the caller has read so far.
//!
//! Sans-IO: the caller reads a prefix (say 1 MiB of the file in OPFS), calls [`read_header`],
//! and on [`GgufError::NeedMore`] reads at least that many bytes and calls again. Parsing starts
//! over each time; the header is a few MiB at most, so the repeat costs less than a second read
//! API would.
//!
//! A model file is untrusted input (the user picks it, or a download was cut short). Every count
//! and length is checked against the bytes actually present before anything is allocated from
//! it, arrays nest at most [`MAX_ARRAY_DEPTH`] deep, and a header that claims more than
//! [`MAX_HEADER_BYTES`] is refused rather than asking the caller to read gigabytes.
//!
//! Layout (little-endian, GGUF v2 and v3; v1 used 32-bit counts and is not read):
//! `"GGUF"`, u32 version, u64 tensor count, u64 metadata count, the metadata
//! (key string, u32 value type, value), the tensor infos (name, u32 dims, u64 × dims,
//! u32 ggml type, u64 offset), padding to `general.alignment` (default 32), then tensor data.

use std::fmt;

/// A header larger than this is refused as malformed. Real headers are far smaller (a 262,144
/// token vocabulary with scores and types is about 6 MiB; a 150k BPE vocabulary with merges
/// about 20 MiB), so a count that needs more is hostile or corrupt.
pub const MAX_HEADER_BYTES: u64 = 256 * 1024 * 1024;

/// Arrays of arrays are legal GGUF; no real model nests them, and a bound keeps a hostile file
/// from recursing the stack away.
pub const MAX_ARRAY_DEPTH: u32 = 3;

/// ggml's GGML_MAX_DIMS: a tensor has at most four dimensions.
const MAX_DIMS: u32 = 4;

const DEFAULT_ALIGNMENT: u64 = 32;

/// One metadata value, in the type the file stores it as.
#[derive(Debug, Clone, PartialEq)]
pub enum MetaValue {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(bool),
    /// GGUF strings are bytes; invalid UTF-8 is replaced (U+FFFD) rather than refused, since
    /// a model name with a stray byte should not make the model unusable.
    String(String),
    U64(u64),
    I64(i64),
    F64(f64),
    Array(MetaArray),
}

/// A metadata array, kept typed: a 262,144-entry score array is 1 MiB as `Vec<f32>` and would
/// be 8 MiB as a `Vec<MetaValue>`.
#[derive(Debug, Clone, PartialEq)]
pub enum MetaArray {
    U8(Vec<u8>),
    I8(Vec<i8>),
    U16(Vec<u16>),
    I16(Vec<i16>),
    U32(Vec<u32>),
    I32(Vec<i32>),
    F32(Vec<f32>),
    Bool(Vec<bool>),
    String(Vec<String>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    Array(Vec<MetaArray>),
}

impl MetaArray {
    pub fn len(&self) -> usize {
        match self {
            MetaArray::U8(v) => v.len(),
            MetaArray::I8(v) => v.len(),
            MetaArray::U16(v) => v.len(),
            MetaArray::I16(v) => v.len(),
            MetaArray::U32(v) => v.len(),
            MetaArray::I32(v) => v.len(),
            MetaArray::F32(v) => v.len(),
            MetaArray::Bool(v) => v.len(),
            MetaArray::String(v) => v.len(),
            MetaArray::U64(v) => v.len(),
            MetaArray::I64(v) => v.len(),
            MetaArray::F64(v) => v.len(),
            MetaArray::Array(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl MetaValue {
    /// The value as an unsigned integer, whichever integer type the writer chose (converters
    /// disagree: `context_length` is u32 in most files and u64 in some).
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            MetaValue::U8(v) => Some(v.into()),
            MetaValue::U16(v) => Some(v.into()),
            MetaValue::U32(v) => Some(v.into()),
            MetaValue::U64(v) => Some(v),
            MetaValue::I8(v) => u64::try_from(v).ok(),
            MetaValue::I16(v) => u64::try_from(v).ok(),
            MetaValue::I32(v) => u64::try_from(v).ok(),
            MetaValue::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            MetaValue::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            MetaValue::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&MetaArray> {
        match self {
            MetaValue::Array(a) => Some(a),
            _ => None,
        }
    }
}

/// One tensor's description. The data itself is not read here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorInfo {
    pub name: String,
    /// Dimensions as GGUF stores them: innermost first (ggml's ne[0], ne[1], ...).
    pub dims: Vec<u64>,
    /// The ggml type id (see [`super::type_name`]).
    pub ggml_type: u32,
    /// Offset of the tensor's data from [`GgufHeader::data_offset`].
    pub offset: u64,
}

impl TensorInfo {
    /// Number of elements, or `None` if the product overflows (a hostile file).
    pub fn element_count(&self) -> Option<u64> {
        self.dims
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d))
    }
}

/// Everything before the tensor data.
#[derive(Debug, Clone, PartialEq)]
pub struct GgufHeader {
    pub version: u32,
    /// Metadata in file order. Looked up by linear search: a few dozen keys, read a few times.
    pub metadata: Vec<(String, MetaValue)>,
    pub tensors: Vec<TensorInfo>,
    /// From `general.alignment`, 32 when absent.
    pub alignment: u64,
    /// Absolute file offset where tensor data starts (the end of the header, aligned).
    pub data_offset: u64,
}

impl GgufHeader {
    pub fn get(&self, key: &str) -> Option<&MetaValue> {
        self.metadata.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(MetaValue::as_str)
    }

    pub fn get_u64(&self, key: &str) -> Option<u64> {
        self.get(key).and_then(MetaValue::as_u64)
    }

    pub fn get_bool(&self, key: &str) -> Option<bool> {
        self.get(key).and_then(MetaValue::as_bool)
    }

    pub fn get_array(&self, key: &str) -> Option<&MetaArray> {
        self.get(key).and_then(MetaValue::as_array)
    }
}

/// Serializable: the model worker sends it to the page inside `model_panel::JobError`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum GgufError {
    /// The prefix ends inside the header: read at least this many bytes from the start of the
    /// file and call again. If the file is shorter than that, it is truncated.
    NeedMore {
        at_least: u64,
    },
    /// The file does not start with the GGUF magic.
    NotGguf,
    UnsupportedVersion {
        version: u32,
    },
    /// The header is not well formed; `reason` says where.
    Malformed {
        reason: String,
    },
}

impl fmt::Display for GgufError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GgufError::NeedMore { at_least } => write!(
                f,
                "The model file's header continues past the {at_least} bytes read so far; \
                 if the file is shorter than that, it is incomplete."
            ),
            GgufError::NotGguf => write!(f, "This file is not a GGUF model."),
            GgufError::UnsupportedVersion { version } => write!(
                f,
                "This GGUF file is version {version}; Skiff reads GGUF versions 2 and 3."
            ),
            GgufError::Malformed { reason } => {
                write!(f, "This GGUF file is damaged: {reason}.")
            }
        }
    }
}

impl std::error::Error for GgufError {}

/// Reads the header from a prefix of a GGUF file.
pub fn read_header(bytes: &[u8]) -> Result<GgufHeader, GgufError> {
    let mut r = Reader { bytes, pos: 0 };
    // The magic is checked on what is there, so a 2-byte prefix of a PNG is already "not GGUF".
    let magic = b"GGUF";
    let have = bytes.len().min(4);
    if bytes[..have] != magic[..have] {
        return Err(GgufError::NotGguf);
    }
    r.pos = r.need(4)?;
    let version = r.u32()?;
    if version != 2 && version != 3 {
        return Err(GgufError::UnsupportedVersion { version });
    }
    let tensor_count = r.u64()?;
    let kv_count = r.u64()?;

    // Each metadata entry takes at least 8 (key length) + 4 (type) + 1 bytes, each tensor info
    // at least 8 + 4 + 4 + 8; so neither count can exceed what the header bound allows.
    let most_kv = MAX_HEADER_BYTES / 13;
    let most_tensors = MAX_HEADER_BYTES / 24;
    if kv_count > most_kv {
        return Err(malformed(format!("it claims {kv_count} metadata entries")));
    }
    if tensor_count > most_tensors {
        return Err(malformed(format!("it claims {tensor_count} tensors")));
    }

    let mut metadata = Vec::with_capacity(r.capacity_for(kv_count, 13));
    for _ in 0..kv_count {
        let key = r.string()?;
        let value_type = r.u32()?;
        let value = r.value(value_type, 0)?;
        metadata.push((key, value));
    }

    let mut tensors = Vec::with_capacity(r.capacity_for(tensor_count, 24));
    for _ in 0..tensor_count {
        let name = r.string()?;
        let n_dims = r.u32()?;
        if n_dims > MAX_DIMS {
            return Err(malformed(format!(
                "tensor {name} has {n_dims} dimensions (at most {MAX_DIMS})"
            )));
        }
        let mut dims = Vec::with_capacity(n_dims as usize);
        for _ in 0..n_dims {
            dims.push(r.u64()?);
        }
        let ggml_type = r.u32()?;
        let offset = r.u64()?;
        let info = TensorInfo {
            name,
            dims,
            ggml_type,
            offset,
        };
        if info.element_count().is_none() {
            return Err(malformed(format!(
                "tensor {} has dimensions whose product overflows",
                info.name
            )));
        }
        tensors.push(info);
    }

    let alignment = match metadata.iter().find(|(k, _)| k == "general.alignment") {
        None => DEFAULT_ALIGNMENT,
        Some((_, MetaValue::U32(a))) if *a != 0 && a.is_power_of_two() => u64::from(*a),
        Some((_, other)) => {
            return Err(malformed(format!(
                "general.alignment is {other:?}, not a power of two"
            )))
        }
    };
    let end = r.pos as u64;
    let data_offset = end
        .checked_add(alignment - 1)
        .map(|v| v / alignment * alignment)
        .ok_or_else(|| malformed("the header ends past the largest offset".to_string()))?;

    Ok(GgufHeader {
        version,
        metadata,
        tensors,
        alignment,
        data_offset,
    })
}

fn malformed(reason: String) -> GgufError {
    GgufError::Malformed { reason }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    /// The position after `n` more bytes, if they are present. Otherwise NeedMore (or
    /// Malformed when the header would grow past [`MAX_HEADER_BYTES`]).
    fn need(&self, n: u64) -> Result<usize, GgufError> {
        let end = (self.pos as u64).checked_add(n);
        match end {
            Some(end) if end <= self.bytes.len() as u64 => Ok(end as usize),
            Some(end) if end <= MAX_HEADER_BYTES => Err(GgufError::NeedMore { at_least: end }),
            _ => Err(malformed(format!(
                "an entry at byte {} claims {n} bytes, more than a header can hold",
                self.pos
            ))),
        }
    }

    /// A capacity for `count` items of at least `min_size` bytes each that the bytes present
    /// could hold: never allocate from an untrusted count.
    fn capacity_for(&self, count: u64, min_size: u64) -> usize {
        let room = (self.bytes.len().saturating_sub(self.pos) as u64) / min_size.max(1);
        count.min(room) as usize
    }

    fn take(&mut self, n: u64) -> Result<&[u8], GgufError> {
        let end = self.need(n)?;
        let slice = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], GgufError> {
        let slice = self.take(N as u64)?;
        let mut out = [0u8; N];
        out.copy_from_slice(slice);
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8, GgufError> {
        Ok(self.array::<1>()?[0])
    }
    fn u16(&mut self) -> Result<u16, GgufError> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    fn u32(&mut self) -> Result<u32, GgufError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn u64(&mut self) -> Result<u64, GgufError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    fn f32(&mut self) -> Result<f32, GgufError> {
        Ok(f32::from_le_bytes(self.array()?))
    }
    fn f64(&mut self) -> Result<f64, GgufError> {
        Ok(f64::from_le_bytes(self.array()?))
    }
    fn bool(&mut self) -> Result<bool, GgufError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(malformed(format!(
                "a boolean at byte {} is {other}",
                self.pos - 1
            ))),
        }
    }

    fn string(&mut self) -> Result<String, GgufError> {
        let len = self.u64()?;
        // `take` checks the length against the bytes present before anything is copied.
        let raw = self.take(len)?;
        Ok(match std::str::from_utf8(raw) {
            Ok(s) => s.to_owned(),
            Err(_) => String::from_utf8_lossy(raw).into_owned(),
        })
    }

    fn value(&mut self, value_type: u32, depth: u32) -> Result<MetaValue, GgufError> {
        Ok(match value_type {
            0 => MetaValue::U8(self.u8()?),
            1 => MetaValue::I8(self.u8()? as i8),
            2 => MetaValue::U16(self.u16()?),
            3 => MetaValue::I16(self.u16()? as i16),
            4 => MetaValue::U32(self.u32()?),
            5 => MetaValue::I32(self.u32()? as i32),
            6 => MetaValue::F32(self.f32()?),
            7 => MetaValue::Bool(self.bool()?),
            8 => MetaValue::String(self.string()?),
            9 => MetaValue::Array(self.array_value(depth)?),
            10 => MetaValue::U64(self.u64()?),
            11 => MetaValue::I64(self.u64()? as i64),
            12 => MetaValue::F64(self.f64()?),
            other => {
                return Err(malformed(format!(
                    "a metadata value at byte {} has unknown type {other}",
                    self.pos.saturating_sub(4)
                )))
            }
        })
    }

    /// Reads `count` fixed-size items after checking that all of them are present.
    fn fixed<T>(
        &mut self,
        count: u64,
        size: u64,
        read: impl Fn(&mut Self) -> Result<T, GgufError>,
    ) -> Result<Vec<T>, GgufError> {
        let total = count
            .checked_mul(size)
            .ok_or_else(|| malformed(format!("an array claims {count} items")))?;
        self.need(total)?;
        let mut out = Vec::with_capacity(count as usize);
        for _ in 0..count {
            out.push(read(self)?);
        }
        Ok(out)
    }

    fn array_value(&mut self, depth: u32) -> Result<MetaArray, GgufError> {
        let item_type = self.u32()?;
        let count = self.u64()?;
        Ok(match item_type {
            0 => MetaArray::U8(self.fixed(count, 1, Self::u8)?),
            1 => MetaArray::I8(self.fixed(count, 1, |r| r.u8().map(|v| v as i8))?),
            2 => MetaArray::U16(self.fixed(count, 2, Self::u16)?),
            3 => MetaArray::I16(self.fixed(count, 2, |r| r.u16().map(|v| v as i16))?),
            4 => MetaArray::U32(self.fixed(count, 4, Self::u32)?),
            5 => MetaArray::I32(self.fixed(count, 4, |r| r.u32().map(|v| v as i32))?),
            6 => MetaArray::F32(self.fixed(count, 4, Self::f32)?),
            7 => MetaArray::Bool(self.fixed(count, 1, Self::bool)?),
            10 => MetaArray::U64(self.fixed(count, 8, Self::u64)?),
            11 => MetaArray::I64(self.fixed(count, 8, |r| r.u64().map(|v| v as i64))?),
            12 => MetaArray::F64(self.fixed(count, 8, Self::f64)?),
            8 => {
                // Each string takes at least its 8-byte length; check that much is present
                // before reserving anything, then grow as strings actually arrive.
                let least = count
                    .checked_mul(8)
                    .ok_or_else(|| malformed(format!("an array claims {count} strings")))?;
                self.need(least)?;
                let mut out = Vec::with_capacity(self.capacity_for(count, 8));
                for _ in 0..count {
                    out.push(self.string()?);
                }
                MetaArray::String(out)
            }
            9 => {
                if depth + 1 >= MAX_ARRAY_DEPTH {
                    return Err(malformed(format!(
                        "arrays nest deeper than {MAX_ARRAY_DEPTH} levels"
                    )));
                }
                let least = count
                    .checked_mul(12)
                    .ok_or_else(|| malformed(format!("an array claims {count} arrays")))?;
                self.need(least)?;
                let mut out = Vec::with_capacity(self.capacity_for(count, 12));
                for _ in 0..count {
                    out.push(self.array_value(depth + 1)?);
                }
                MetaArray::Array(out)
            }
            other => {
                return Err(malformed(format!(
                    "an array at byte {} has unknown item type {other}",
                    self.pos.saturating_sub(12)
                )))
            }
        })
    }
}
