//! A resource template's form: one field per RFC 6570 variable, what must be filled, the URI
//! it reads, and the `completion/complete` request for a field as the user types.

use serde_json::Value;

use crate::mcp::model::ResourceTemplate;
use crate::mcp::prompt_result::{completion_params, CompletionRef};
use crate::mcp::uri_template::UriTemplate;

/// One field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    /// Query-only variables may stay empty.
    pub optional: bool,
    pub value: String,
}

/// The form for one template, or the sentence saying why the template cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateForm {
    pub template: String,
    pub fields: Vec<Field>,
}

impl TemplateForm {
    pub fn new(t: &ResourceTemplate, values: &[(String, String)]) -> Result<TemplateForm, String> {
        let parsed = UriTemplate::parse(&t.uri_template).map_err(|e| e.to_string())?;
        let fields = parsed
            .variables()
            .into_iter()
            .map(|name| Field {
                name: name.to_string(),
                optional: parsed.optional(name),
                value: values
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default(),
            })
            .collect();
        Ok(TemplateForm {
            template: t.uri_template.clone(),
            fields,
        })
    }

    fn values(&self) -> Vec<(String, String)> {
        self.fields
            .iter()
            .map(|f| (f.name.clone(), f.value.trim().to_string()))
            .collect()
    }

    /// The URI to read, or per-field sentences (field index, sentence).
    pub fn expand(&self) -> Result<String, Vec<(usize, String)>> {
        let errors: Vec<(usize, String)> = self
            .fields
            .iter()
            .enumerate()
            .filter(|(_, f)| !f.optional && f.value.trim().is_empty())
            .map(|(i, f)| (i, format!("{} is required.", f.name)))
            .collect();
        if !errors.is_empty() {
            return Err(errors);
        }
        match UriTemplate::parse(&self.template) {
            Ok(t) => Ok(t.expand_strings(&self.values())),
            Err(e) => Err(vec![(0, e.to_string())]),
        }
    }

    /// `completion/complete` params for `field` with what is typed so far, or `None` for a
    /// field the form does not have.
    pub fn completion(&self, field: &str) -> Option<Value> {
        let f = self.fields.iter().find(|f| f.name == field)?;
        Some(completion_params(
            &CompletionRef::Template(&self.template),
            field,
            &f.value,
            &self.values(),
        ))
    }
}
