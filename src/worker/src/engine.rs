//! A loaded model with what turns a request into tokens (tokenizer, chat template), and the
//! choice of which stored model a request means. Plain Rust over `Read + Seek`.
//!
//! Prefix reuse: the engine remembers which tokens the model's KV cache holds (one sequence:
//! the last conversation) and starts the next request after their common prefix, as
//! llama.cpp's server does, so a follow-up turn reads only the new messages. What evicts
//! them: a request that diverges (the cache is cut to the common part), a failed step (the
//! cache may be half written, so all of it goes), and unloading or reloading the model.

use crate::api_error::ApiError;
use crate::completion::Completion;
use crate::generate::reusable_prefix;
use crate::model::Model;
use crate::request::{ChatMessage, ChatRequest, MessageRole};
use crate::sse::SseWriter;
use crate::store::ModelRecord;
use skiff_core::local_model::{
    read_header, ChatTemplate, GgufError, GgufHeader, ModelInfo, Role, TemplateMessage, Tokenizer,
    MAX_HEADER_BYTES,
};
use std::io::{Read, Seek, SeekFrom};

/// The first read of a header; most small models' headers fit (Gemma's 262k-token
/// vocabulary does not, and asks for more).
const FIRST_HEADER_READ: u64 = 4 * 1024 * 1024;

pub struct Engine {
    model: Model,
    tokenizer: Tokenizer,
    template: ChatTemplate,
    default_system: Option<String>,
    record: ModelRecord,
    /// The tokens whose keys and values are in the model's cache, positions 0.. in order.
    cached: Vec<u32>,
}

/// Reads just the GGUF header from the start of `reader`.
pub fn read_header_from<R: Read + Seek>(reader: &mut R) -> Result<GgufHeader, ApiError> {
    let mut want = FIRST_HEADER_READ;
    loop {
        reader
            .seek(SeekFrom::Start(0))
            .map_err(|e| ApiError::Engine(format!("The model file could not be read: {e}.")))?;
        let mut prefix = Vec::new();
        reader
            .by_ref()
            .take(want)
            .read_to_end(&mut prefix)
            .map_err(|e| ApiError::Engine(format!("The model file could not be read: {e}.")))?;
        match read_header(&prefix) {
            Ok(h) => return Ok(h),
            Err(GgufError::NeedMore { at_least })
                if at_least > want
                    && at_least <= MAX_HEADER_BYTES
                    && (prefix.len() as u64) == want =>
            {
                // `at_least` is only the end of the next field; doubling keeps the re-reads
                // (each parses from the start) to a handful instead of one per field.
                want = at_least.max(want.saturating_mul(2)).min(MAX_HEADER_BYTES);
            }
            Err(e) => return Err(ApiError::Unsupported(e.to_string())),
        }
    }
}

impl Engine {
    /// Loads the stored model described by `record` at the context it sets.
    pub fn load<R: Read + Seek>(reader: &mut R, record: &ModelRecord) -> Result<Self, ApiError> {
        Prepared::read(reader, record)?.load(reader)
    }

    pub fn record(&self) -> &ModelRecord {
        &self.record
    }

    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    pub fn model_mut(&mut self) -> (&mut Model, &Tokenizer) {
        (&mut self.model, &self.tokenizer)
    }

    /// The prompt's token ids, refused when it leaves no room to answer.
    pub fn prompt(&self, messages: &[ChatMessage]) -> Result<Vec<u32>, ApiError> {
        render_prompt(
            &self.template,
            &self.tokenizer,
            self.default_system.as_deref(),
            messages,
            self.model.context(),
        )
    }
}

/// A model whose header is read (tokenizer, chat template) and whose tensors are not yet:
/// enough to refuse a prompt that does not fit before the seconds of loading start.
pub struct Prepared {
    tokenizer: Tokenizer,
    template: ChatTemplate,
    default_system: Option<String>,
    record: ModelRecord,
}

impl Prepared {
    pub fn read<R: Read + Seek>(reader: &mut R, record: &ModelRecord) -> Result<Self, ApiError> {
        let header = read_header_from(reader)?;
        let info = ModelInfo::from_header(&header, record.size)
            .map_err(|e| ApiError::Unsupported(e.to_string()))?;
        let tokenizer =
            Tokenizer::from_header(&header).map_err(|e| ApiError::Unsupported(e.to_string()))?;
        Ok(Self {
            tokenizer,
            template: info.chat_template,
            default_system: info.default_system_prompt,
            record: record.clone(),
        })
    }

    /// The prompt's token ids at the record's context, as [`Engine::prompt`] will make them.
    pub fn prompt(&self, messages: &[ChatMessage]) -> Result<Vec<u32>, ApiError> {
        render_prompt(
            &self.template,
            &self.tokenizer,
            self.default_system.as_deref(),
            messages,
            (self.record.context as usize).max(1),
        )
    }

    /// Reads every tensor (the seconds-long part).
    pub fn load<R: Read + Seek>(self, reader: &mut R) -> Result<Engine, ApiError> {
        reader
            .seek(SeekFrom::Start(0))
            .map_err(|e| ApiError::Engine(format!("The model file could not be read: {e}.")))?;
        let model = Model::load(reader, self.record.context as usize)?;
        Ok(Engine {
            model,
            tokenizer: self.tokenizer,
            template: self.template,
            default_system: self.default_system,
            record: self.record,
            cached: Vec::new(),
        })
    }
}

fn render_prompt(
    template: &ChatTemplate,
    tokenizer: &Tokenizer,
    default_system: Option<&str>,
    messages: &[ChatMessage],
    context: usize,
) -> Result<Vec<u32>, ApiError> {
    let messages: Vec<TemplateMessage> = messages
        .iter()
        .map(|m| {
            let role = match m.role {
                MessageRole::System => Role::System,
                MessageRole::User => Role::User,
                MessageRole::Assistant => Role::Assistant,
                MessageRole::Tool => Role::Tool,
            };
            TemplateMessage::new(role, m.content.clone())
        })
        .collect();
    let rendered = template.render_with_default(default_system, &messages, true);
    let ids = tokenizer.encode_prompt(&rendered);
    if ids.len() >= context {
        return Err(ApiError::PromptTooLong {
            tokens: ids.len(),
            context,
        });
    }
    Ok(ids)
}

impl Engine {
    /// Starts a completion for `req`, reusing the cached prefix it shares with the last
    /// request. Hand the completion back with [`Engine::settle`] when it ends.
    pub fn start(
        &mut self,
        request_id: u64,
        req: &ChatRequest,
        now_ms: f64,
    ) -> Result<Completion, ApiError> {
        let prompt = self.prompt(&req.messages)?;
        let reuse = reusable_prefix(&self.cached, &prompt);
        // On `false` the model cleared its whole cache.
        let kept = if self.model.truncate(reuse) { reuse } else { 0 };
        self.cached.truncate(kept);
        Ok(Completion::resume(
            prompt,
            kept,
            &req.sampling,
            req.max_tokens,
            req.stop.clone(),
            req.ignore_eos,
            SseWriter::new(request_id, &self.record.id),
            now_ms,
        ))
    }
}

impl Engine {
    /// Records what the finished (or stopped) completion left in the cache. `failed` means a
    /// step returned an error: some layers may have written a position others did not, so
    /// nothing is kept.
    pub fn settle(&mut self, completion: &Completion, failed: bool) {
        if failed {
            self.forget();
        } else {
            self.cached = completion.fed_tokens().to_vec();
        }
    }

    /// Empties the cache: the next request reads its whole prompt.
    pub fn forget(&mut self) {
        self.model.clear();
        self.cached.clear();
    }

    /// How many tokens the cache holds for the next request to reuse.
    pub fn cached_tokens(&self) -> usize {
        self.cached.len()
    }
}

/// The stored model a request's `model` field means: empty picks the most recent one.
/// `models` is sorted newest first.
pub fn select_model<'a>(
    models: &'a [ModelRecord],
    requested: &str,
) -> Result<&'a ModelRecord, ApiError> {
    let Some(newest) = models.first() else {
        return Err(ApiError::NoModelStored);
    };
    if requested.is_empty() {
        return Ok(newest);
    }
    models
        .iter()
        .find(|m| m.id == requested)
        .ok_or_else(|| ApiError::UnknownModel(requested.to_string()))
}
