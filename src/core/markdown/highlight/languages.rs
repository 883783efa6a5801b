//! One small table per language: what its keywords, literals, comments and strings look like.
//!
//! A table only needs to be right about token *boundaries* that matter for colour (where a
//! comment or string starts and ends); a keyword missing from a list stays plain text. The
//! tables must never hold anything but data: every language shares the one lexer in `mod.rs`.

/// How a language's source is cut into tokens.
pub(super) enum Syntax {
    /// Keywords, strings, comments and numbers, described by a [`Lang`] table.
    Code(&'static Lang),
    /// Tags, attributes and quoted values (HTML, XML, SVG).
    Markup,
    /// Colour by line prefix (`+`, `-`, `@@`).
    Diff,
}

pub(super) struct Lang {
    pub(super) keywords: &'static [&'static str],
    /// Constants and built-in types, coloured apart from keywords.
    pub(super) literals: &'static [&'static str],
    pub(super) line_comments: &'static [&'static str],
    pub(super) block_comment: Option<(&'static str, &'static str)>,
    /// Quote characters that open a string closed by the same character.
    pub(super) quotes: &'static [u8],
    /// Python's `"""` and `'''`.
    pub(super) triple_quotes: bool,
    /// A backslash escapes the next character inside strings.
    pub(super) backslash_escapes: bool,
    /// Rust: `'` opens a char literal only when one (possibly escaped) char and `'` follow;
    /// otherwise it is a lifetime.
    pub(super) char_literals: bool,
    /// SQL keywords are written in any case.
    pub(super) case_insensitive: bool,
    /// Characters besides `[A-Za-z0-9_]` that identifiers may contain (`$` in JS, `-` in CSS).
    pub(super) ident_extra: &'static [u8],
    /// A `#` opens a comment only at the start of a word (shell's `$#`, `a#b`, YAML's `a#b`).
    pub(super) hash_needs_space: bool,
    /// A `#` first on a line starts a preprocessor directive (C, C++).
    pub(super) hash_directives: bool,
    /// An identifier or string first on its line and followed by this is a key (YAML `:`,
    /// TOML `=`).
    pub(super) key_before: Option<u8>,
    /// A string followed by `:` is a key (JSON).
    pub(super) string_keys: bool,
    /// A line starting with `[` is a section header (TOML, INI).
    pub(super) section_lines: bool,
}

const BASE: Lang = Lang {
    keywords: &[],
    literals: &[],
    line_comments: &[],
    block_comment: None,
    quotes: b"\"'",
    triple_quotes: false,
    backslash_escapes: true,
    char_literals: false,
    case_insensitive: false,
    ident_extra: b"",
    hash_needs_space: false,
    hash_directives: false,
    key_before: None,
    string_keys: false,
    section_lines: false,
};

const C_COMMENTS: Option<(&str, &str)> = Some(("/*", "*/"));

static RUST: Lang = Lang {
    keywords: &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
        "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "type",
        "unsafe", "use", "where", "while",
    ],
    literals: &[
        "true", "false", "None", "Some", "Ok", "Err", "i8", "i16", "i32", "i64", "i128", "isize",
        "u8", "u16", "u32", "u64", "u128", "usize", "f32", "f64", "bool", "char", "str", "String",
        "Vec", "Option", "Result", "Box",
    ],
    line_comments: &["//"],
    block_comment: C_COMMENTS,
    quotes: b"\"",
    char_literals: true,
    ..BASE
};

static PYTHON: Lang = Lang {
    keywords: &[
        "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
        "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
        "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with",
        "yield", "match", "case",
    ],
    literals: &[
        "True", "False", "None", "self", "int", "str", "float", "list", "dict", "print",
    ],
    line_comments: &["#"],
    triple_quotes: true,
    ..BASE
};

static JS: Lang = Lang {
    keywords: &[
        "async",
        "await",
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "default",
        "delete",
        "do",
        "else",
        "export",
        "extends",
        "finally",
        "for",
        "from",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "let",
        "new",
        "of",
        "return",
        "static",
        "super",
        "switch",
        "this",
        "throw",
        "try",
        "typeof",
        "var",
        "void",
        "while",
        "with",
        "yield",
        "interface",
        "type",
        "enum",
        "implements",
        "private",
        "public",
        "protected",
        "readonly",
        "as",
        "declare",
        "namespace",
        "abstract",
        "keyof",
    ],
    literals: &[
        "true",
        "false",
        "null",
        "undefined",
        "NaN",
        "Infinity",
        "string",
        "number",
        "boolean",
        "any",
        "unknown",
        "never",
        "object",
    ],
    line_comments: &["//"],
    block_comment: C_COMMENTS,
    quotes: b"\"'`",
    ident_extra: b"$",
    ..BASE
};

static JSON: Lang = Lang {
    literals: &["true", "false", "null"],
    quotes: b"\"",
    string_keys: true,
    ..BASE
};

static SHELL: Lang = Lang {
    keywords: &[
        "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
        "in", "function", "return", "local", "export", "readonly", "set", "unset", "source",
        "echo", "cd", "exit", "shift", "eval", "exec", "trap",
    ],
    literals: &["true", "false"],
    line_comments: &["#"],
    hash_needs_space: true,
    ..BASE
};

static CSS: Lang = Lang {
    keywords: &[
        "@media",
        "@import",
        "@font-face",
        "@keyframes",
        "@supports",
        "@layer",
        "@container",
        "!important",
    ],
    literals: &[
        "inherit",
        "initial",
        "unset",
        "none",
        "auto",
        "transparent",
        "currentColor",
    ],
    block_comment: C_COMMENTS,
    ident_extra: b"-@!",
    ..BASE
};

static SQL: Lang = Lang {
    keywords: &[
        "select",
        "from",
        "where",
        "and",
        "or",
        "not",
        "insert",
        "into",
        "values",
        "update",
        "set",
        "delete",
        "create",
        "table",
        "drop",
        "alter",
        "add",
        "index",
        "on",
        "join",
        "left",
        "right",
        "inner",
        "outer",
        "full",
        "cross",
        "group",
        "by",
        "order",
        "having",
        "limit",
        "offset",
        "as",
        "distinct",
        "union",
        "all",
        "case",
        "when",
        "then",
        "else",
        "end",
        "in",
        "is",
        "like",
        "between",
        "exists",
        "primary",
        "key",
        "foreign",
        "references",
        "unique",
        "default",
        "with",
        "returning",
        "asc",
        "desc",
        "begin",
        "commit",
        "rollback",
        "view",
        "constraint",
        "check",
        "if",
    ],
    literals: &[
        "null",
        "true",
        "false",
        "int",
        "integer",
        "bigint",
        "text",
        "varchar",
        "char",
        "boolean",
        "real",
        "date",
        "timestamp",
        "serial",
        "numeric",
        "count",
        "sum",
        "avg",
        "min",
        "max",
    ],
    line_comments: &["--"],
    block_comment: C_COMMENTS,
    backslash_escapes: false,
    case_insensitive: true,
    ..BASE
};

static GO: Lang = Lang {
    keywords: &[
        "break",
        "case",
        "chan",
        "const",
        "continue",
        "default",
        "defer",
        "else",
        "fallthrough",
        "for",
        "func",
        "go",
        "goto",
        "if",
        "import",
        "interface",
        "map",
        "package",
        "range",
        "return",
        "select",
        "struct",
        "switch",
        "type",
        "var",
    ],
    literals: &[
        "true", "false", "nil", "iota", "int", "int64", "int32", "uint", "uint8", "uint64",
        "float64", "float32", "string", "bool", "byte", "rune", "error", "any", "make", "len",
        "append", "new",
    ],
    line_comments: &["//"],
    block_comment: C_COMMENTS,
    quotes: b"\"'`",
    ..BASE
};

static JAVA: Lang = Lang {
    keywords: &[
        "abstract",
        "assert",
        "break",
        "case",
        "catch",
        "class",
        "continue",
        "default",
        "do",
        "else",
        "enum",
        "extends",
        "final",
        "finally",
        "for",
        "if",
        "implements",
        "import",
        "instanceof",
        "interface",
        "native",
        "new",
        "package",
        "private",
        "protected",
        "public",
        "return",
        "static",
        "super",
        "switch",
        "synchronized",
        "this",
        "throw",
        "throws",
        "try",
        "var",
        "void",
        "volatile",
        "while",
        "record",
        "yield",
        "val",
        "fun",
        "override",
    ],
    literals: &[
        "true", "false", "null", "int", "long", "short", "byte", "char", "boolean", "float",
        "double", "String",
    ],
    line_comments: &["//"],
    block_comment: C_COMMENTS,
    ..BASE
};

static C: Lang = Lang {
    keywords: &[
        "auto",
        "break",
        "case",
        "const",
        "continue",
        "default",
        "do",
        "else",
        "enum",
        "extern",
        "for",
        "goto",
        "if",
        "inline",
        "register",
        "restrict",
        "return",
        "sizeof",
        "static",
        "struct",
        "switch",
        "typedef",
        "union",
        "volatile",
        "while",
        "class",
        "namespace",
        "template",
        "typename",
        "public",
        "private",
        "protected",
        "virtual",
        "override",
        "new",
        "delete",
        "this",
        "using",
        "constexpr",
        "noexcept",
        "try",
        "catch",
        "throw",
        "operator",
        "friend",
        "explicit",
        "mutable",
        "static_cast",
        "const_cast",
        "reinterpret_cast",
    ],
    literals: &[
        "true", "false", "NULL", "nullptr", "int", "char", "void", "long", "short", "float",
        "double", "unsigned", "signed", "bool", "size_t", "uint8_t", "uint32_t", "uint64_t",
        "int32_t", "int64_t", "auto", "std",
    ],
    line_comments: &["//"],
    block_comment: C_COMMENTS,
    hash_directives: true,
    ..BASE
};

static YAML: Lang = Lang {
    literals: &["true", "false", "null", "yes", "no", "on", "off", "~"],
    line_comments: &["#"],
    hash_needs_space: true,
    key_before: Some(b':'),
    ident_extra: b"-.",
    ..BASE
};

static TOML: Lang = Lang {
    literals: &["true", "false", "inf", "nan"],
    line_comments: &["#"],
    key_before: Some(b'='),
    ident_extra: b"-.",
    section_lines: true,
    ..BASE
};

/// The syntax for a fenced block's language name (already reduced to `[A-Za-z0-9_+-]`), or
/// `None` for languages without a table, which stay plain.
pub(super) fn syntax_for(lang: &str) -> Option<Syntax> {
    let lang = lang.to_ascii_lowercase();
    let table = match lang.as_str() {
        "rust" | "rs" => &RUST,
        "python" | "py" | "python3" | "py3" => &PYTHON,
        "javascript" | "js" | "jsx" | "mjs" | "cjs" | "typescript" | "ts" | "tsx" => &JS,
        "json" | "jsonc" | "json5" | "jsonl" => &JSON,
        "sh" | "bash" | "shell" | "zsh" | "console" | "shellsession" => &SHELL,
        "css" | "scss" | "less" => &CSS,
        "sql" | "postgresql" | "postgres" | "mysql" | "sqlite" => &SQL,
        "go" | "golang" => &GO,
        "java" | "kotlin" | "kt" | "scala" => &JAVA,
        "c" | "h" | "cpp" | "c++" | "cc" | "cxx" | "hpp" | "objc" | "csharp" | "cs" => &C,
        "yaml" | "yml" => &YAML,
        "toml" | "ini" => &TOML,
        "html" | "htm" | "xml" | "svg" | "xhtml" | "vue" => return Some(Syntax::Markup),
        "diff" | "patch" => return Some(Syntax::Diff),
        _ => return None,
    };
    Some(Syntax::Code(table))
}
