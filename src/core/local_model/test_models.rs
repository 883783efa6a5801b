//! The two test models and their llama.cpp fixtures, for the tests of this module.
//!
//! The models are too large for the repository; `scripts/setup-models.sh` puts them in
//! `${SKIFF_MODELS:-$HOME/.cache/skiff/models}`. A missing model fails the test with that
//! instruction rather than skipping it, so a green run always means "checked".
//!
//! Headers are read the way the worker reads them: a prefix, grown on `NeedMore`.

use std::fs::File;
use std::io::Read;
use std::path::PathBuf;
use std::sync::OnceLock;

use super::{read_header, GgufError, GgufHeader, Tokenizer};

pub(super) struct TestModel {
    pub(super) file: &'static str,
    pub(super) header: GgufHeader,
    pub(super) file_size: u64,
    /// How many prefix reads the header took.
    pub(super) reads: usize,
    /// The first bytes of the file, for the truncation and mutation tests.
    pub(super) prefix: Vec<u8>,
    tokenizer: OnceLock<Tokenizer>,
    fixture: OnceLock<serde_json::Value>,
}

impl TestModel {
    pub(super) fn tokenizer(&self) -> &Tokenizer {
        self.tokenizer
            .get_or_init(|| match Tokenizer::from_header(&self.header) {
                Ok(t) => t,
                Err(e) => panic!("{}: {e}", self.file),
            })
    }

    pub(super) fn fixture(&self) -> &serde_json::Value {
        self.fixture.get_or_init(|| {
            let text = match self.file {
                SMOLLM2 => include_str!("../../../tests/fixtures/local_model/smollm2.json"),
                _ => include_str!("../../../tests/fixtures/local_model/gemma3.json"),
            };
            serde_json::from_str(text).expect("fixture is JSON")
        })
    }
}

pub(super) const SMOLLM2: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
pub(super) const GEMMA3: &str = "gemma-3-270m-q4_k_m.gguf";

pub(super) fn models_dir() -> PathBuf {
    match std::env::var_os("SKIFF_MODELS") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let home = std::env::var_os("HOME").unwrap_or_default();
            PathBuf::from(home).join(".cache/skiff/models")
        }
    }
}

pub(super) fn smollm2() -> &'static TestModel {
    static MODEL: OnceLock<TestModel> = OnceLock::new();
    MODEL.get_or_init(|| load(SMOLLM2))
}

pub(super) fn gemma3() -> &'static TestModel {
    static MODEL: OnceLock<TestModel> = OnceLock::new();
    MODEL.get_or_init(|| load(GEMMA3))
}

pub(super) fn both() -> [&'static TestModel; 2] {
    [smollm2(), gemma3()]
}

fn load(file: &'static str) -> TestModel {
    let path = models_dir().join(file);
    let mut f = File::open(&path).unwrap_or_else(|e| {
        panic!(
            "{} cannot be opened ({e}); run scripts/setup-models.sh to download the test models",
            path.display()
        )
    });
    let file_size = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut bytes: Vec<u8> = Vec::new();
    let mut want: u64 = 64 * 1024;
    let mut reads = 0;
    loop {
        let target = want.min(file_size);
        let have = bytes.len() as u64;
        if target > have {
            let mut more = Vec::new();
            (&mut f)
                .take(target - have)
                .read_to_end(&mut more)
                .expect("model file reads");
            bytes.extend_from_slice(&more);
        }
        reads += 1;
        match read_header(&bytes) {
            Ok(header) => {
                bytes.truncate(header.data_offset.min(bytes.len() as u64) as usize);
                return TestModel {
                    file,
                    header,
                    file_size,
                    reads,
                    prefix: bytes,
                    tokenizer: OnceLock::new(),
                    fixture: OnceLock::new(),
                };
            }
            Err(GgufError::NeedMore { at_least }) => {
                assert!(
                    at_least <= file_size,
                    "{file}: header needs {at_least} bytes, file has {file_size}; \
                     run scripts/setup-models.sh to download it again"
                );
                assert!(at_least > bytes.len() as u64, "NeedMore must ask for more");
                // Grow geometrically, as the worker does, so a large header takes few reads.
                want = at_least.max(bytes.len() as u64 * 2);
            }
            Err(e) => panic!("{file}: {e}"),
        }
    }
}

/// `"0a0b"` → bytes.
pub(super) fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("fixture hex"))
        .collect()
}
