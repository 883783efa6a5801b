//! A loaded model with what turns a request into tokens (tokenizer, chat template), and the
//! choice of which stored model a request means. Plain Rust over `Read + Seek`.

use crate::api_error::ApiError;
use crate::completion::Completion;
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
        let header = read_header_from(reader)?;
        let info = ModelInfo::from_header(&header, record.size)
            .map_err(|e| ApiError::Unsupported(e.to_string()))?;
        let tokenizer =
            Tokenizer::from_header(&header).map_err(|e| ApiError::Unsupported(e.to_string()))?;
        // The header (with a second copy of the vocabulary) is not needed past this point.
        drop(header);
        reader
            .seek(SeekFrom::Start(0))
            .map_err(|e| ApiError::Engine(format!("The model file could not be read: {e}.")))?;
        let model = Model::load(reader, record.context as usize)?;
        Ok(Self {
            model,
            tokenizer,
            template: info.chat_template,
            default_system: info.default_system_prompt,
            record: record.clone(),
        })
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
        let rendered =
            self.template
                .render_with_default(self.default_system.as_deref(), &messages, true);
        let ids = self.tokenizer.encode_prompt(&rendered);
        let context = self.model.context();
        if ids.len() >= context {
            return Err(ApiError::PromptTooLong {
                tokens: ids.len(),
                context,
            });
        }
        Ok(ids)
    }

    /// Starts a completion for `req` with a fresh KV cache.
    pub fn start(
        &mut self,
        request_id: u64,
        req: &ChatRequest,
        now_ms: f64,
    ) -> Result<Completion, ApiError> {
        let prompt = self.prompt(&req.messages)?;
        self.model.clear();
        Ok(Completion::new(
            prompt,
            &req.sampling,
            req.max_tokens,
            req.stop.clone(),
            req.ignore_eos,
            SseWriter::new(request_id, &self.record.id),
            now_ms,
        ))
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
