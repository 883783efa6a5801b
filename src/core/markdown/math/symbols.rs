//! The LaTeX commands the converter knows, as data: symbols, function names, font maps.

/// What a command stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Symbol {
    /// An identifier (`<mi>`): Greek letters, `\infty`, `\hbar`.
    Ident(&'static str),
    /// An operator, relation or delimiter (`<mo>`).
    Op(&'static str),
    /// A large operator whose limits go under and over it in display math.
    BigOp(&'static str),
    /// A function name written upright (`<mi>sin</mi>`); `true` if its limits go under it in
    /// display math (`\lim`, `\max`).
    Func(&'static str, bool),
}

/// Looks up `\name` (without the backslash).
pub(super) fn symbol(name: &str) -> Option<Symbol> {
    use Symbol::{BigOp, Func, Ident, Op};
    Some(match name {
        "alpha" => Ident("α"),
        "beta" => Ident("β"),
        "gamma" => Ident("γ"),
        "delta" => Ident("δ"),
        "epsilon" => Ident("ϵ"),
        "varepsilon" => Ident("ε"),
        "zeta" => Ident("ζ"),
        "eta" => Ident("η"),
        "theta" => Ident("θ"),
        "vartheta" => Ident("ϑ"),
        "iota" => Ident("ι"),
        "kappa" => Ident("κ"),
        "lambda" => Ident("λ"),
        "mu" => Ident("μ"),
        "nu" => Ident("ν"),
        "xi" => Ident("ξ"),
        "pi" => Ident("π"),
        "varpi" => Ident("ϖ"),
        "rho" => Ident("ρ"),
        "varrho" => Ident("ϱ"),
        "sigma" => Ident("σ"),
        "varsigma" => Ident("ς"),
        "tau" => Ident("τ"),
        "upsilon" => Ident("υ"),
        "phi" => Ident("ϕ"),
        "varphi" => Ident("φ"),
        "chi" => Ident("χ"),
        "psi" => Ident("ψ"),
        "omega" => Ident("ω"),
        "Gamma" => Ident("Γ"),
        "Delta" => Ident("Δ"),
        "Theta" => Ident("Θ"),
        "Lambda" => Ident("Λ"),
        "Xi" => Ident("Ξ"),
        "Pi" => Ident("Π"),
        "Sigma" => Ident("Σ"),
        "Upsilon" => Ident("Υ"),
        "Phi" => Ident("Φ"),
        "Psi" => Ident("Ψ"),
        "Omega" => Ident("Ω"),
        "infty" => Ident("∞"),
        "partial" => Ident("∂"),
        "nabla" => Ident("∇"),
        "hbar" => Ident("ℏ"),
        "ell" => Ident("ℓ"),
        "Re" => Ident("ℜ"),
        "Im" => Ident("ℑ"),
        "aleph" => Ident("ℵ"),
        "emptyset" => Ident("∅"),
        "varnothing" => Ident("∅"),
        "dots" | "ldots" => Ident("…"),
        "cdots" => Op("⋯"),
        "vdots" => Op("⋮"),
        "ddots" => Op("⋱"),
        "prime" => Op("′"),
        "times" => Op("×"),
        "cdot" => Op("⋅"),
        "pm" => Op("±"),
        "mp" => Op("∓"),
        "div" => Op("÷"),
        "ast" => Op("∗"),
        "star" => Op("⋆"),
        "circ" => Op("∘"),
        "bullet" => Op("∙"),
        "oplus" => Op("⊕"),
        "otimes" => Op("⊗"),
        "leq" | "le" => Op("≤"),
        "geq" | "ge" => Op("≥"),
        "neq" | "ne" => Op("≠"),
        "lt" => Op("<"),
        "gt" => Op(">"),
        "ll" => Op("≪"),
        "gg" => Op("≫"),
        "approx" => Op("≈"),
        "equiv" => Op("≡"),
        "sim" => Op("∼"),
        "simeq" => Op("≃"),
        "cong" => Op("≅"),
        "propto" => Op("∝"),
        "perp" => Op("⊥"),
        "parallel" => Op("∥"),
        "mid" => Op("∣"),
        "in" => Op("∈"),
        "notin" => Op("∉"),
        "ni" => Op("∋"),
        "subset" => Op("⊂"),
        "subseteq" => Op("⊆"),
        "supset" => Op("⊃"),
        "supseteq" => Op("⊇"),
        "cup" => Op("∪"),
        "cap" => Op("∩"),
        "setminus" => Op("∖"),
        "forall" => Op("∀"),
        "exists" => Op("∃"),
        "neg" | "lnot" => Op("¬"),
        "land" | "wedge" => Op("∧"),
        "lor" | "vee" => Op("∨"),
        "to" | "rightarrow" => Op("→"),
        "gets" | "leftarrow" => Op("←"),
        "leftrightarrow" => Op("↔"),
        "Rightarrow" | "implies" => Op("⇒"),
        "Leftarrow" => Op("⇐"),
        "Leftrightarrow" | "iff" => Op("⇔"),
        "mapsto" => Op("↦"),
        "uparrow" => Op("↑"),
        "downarrow" => Op("↓"),
        "langle" => Op("⟨"),
        "rangle" => Op("⟩"),
        "lfloor" => Op("⌊"),
        "rfloor" => Op("⌋"),
        "lceil" => Op("⌈"),
        "rceil" => Op("⌉"),
        "vert" => Op("|"),
        "Vert" | "|" => Op("‖"),
        "{" | "lbrace" => Op("{"),
        "}" | "rbrace" => Op("}"),
        "colon" => Op(":"),
        "angle" => Op("∠"),
        "triangle" => Op("△"),
        "top" => Op("⊤"),
        "bot" => Op("⊥"),
        "%" => Op("%"),
        "$" => Op("$"),
        "#" => Op("#"),
        "&" => Op("&"),
        "_" => Op("_"),
        "sum" => BigOp("∑"),
        "prod" => BigOp("∏"),
        "coprod" => BigOp("∐"),
        "bigcup" => BigOp("⋃"),
        "bigcap" => BigOp("⋂"),
        "int" => Op("∫"),
        "iint" => Op("∬"),
        "iiint" => Op("∭"),
        "oint" => Op("∮"),
        "lim" | "max" | "min" | "sup" | "inf" | "det" | "gcd" | "Pr" | "argmax" | "argmin" => {
            Func(name_static(name)?, true)
        }
        "sin" | "cos" | "tan" | "cot" | "sec" | "csc" | "sinh" | "cosh" | "tanh" | "arcsin"
        | "arccos" | "arctan" | "log" | "ln" | "lg" | "exp" | "deg" | "arg" | "dim" | "ker"
        | "hom" | "mod" | "bmod" => Func(name_static(name)?, false),
        _ => return None,
    })
}

/// The function names above as `'static` strings (the match arms bind `name` only by value).
fn name_static(name: &str) -> Option<&'static str> {
    const NAMES: &[&str] = &[
        "lim", "max", "min", "sup", "inf", "det", "gcd", "Pr", "argmax", "argmin", "sin", "cos",
        "tan", "cot", "sec", "csc", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan", "log",
        "ln", "lg", "exp", "deg", "arg", "dim", "ker", "hom", "mod", "bmod",
    ];
    NAMES.iter().copied().find(|n| *n == name)
}

/// Accent commands and the mark they put over their argument.
pub(super) fn accent(name: &str) -> Option<&'static str> {
    Some(match name {
        "hat" | "widehat" => "^",
        "bar" | "overline" => "¯",
        "vec" | "overrightarrow" => "→",
        "dot" => "˙",
        "ddot" => "¨",
        "tilde" | "widetilde" => "~",
        _ => return None,
    })
}

/// Width of a spacing command, from the fixed set the allowlist accepts.
pub(super) fn space(name: &str) -> Option<&'static str> {
    Some(match name {
        "," | "thinspace" => "0.167em",
        ":" | ">" | "medspace" => "0.222em",
        ";" | "thickspace" => "0.278em",
        " " | "space" => "0.25em",
        "quad" => "1em",
        "qquad" => "2em",
        _ => return None,
    })
}

/// Every width [`space`] can return, for the allowlist.
#[cfg(test)]
pub(crate) const SPACE_WIDTHS: [&str; 6] =
    ["0.167em", "0.222em", "0.278em", "0.25em", "1em", "2em"];

/// A letter in one of the math alphabets (`\mathbb`, `\mathbf`, `\mathcal`), as the Unicode
/// mathematical alphanumeric character: MathML Core draws only `mathvariant="normal"`, so the
/// style has to live in the character itself.
pub(super) fn styled(font: &str, c: char) -> Option<char> {
    let (upper, lower, holes): (u32, Option<u32>, &[(char, char)]) = match font {
        "mathbb" => (
            0x1D538,
            Some(0x1D552),
            &[
                ('C', 'ℂ'),
                ('H', 'ℍ'),
                ('N', 'ℕ'),
                ('P', 'ℙ'),
                ('Q', 'ℚ'),
                ('R', 'ℝ'),
                ('Z', 'ℤ'),
            ],
        ),
        "mathbf" | "boldsymbol" | "bm" => (0x1D400, Some(0x1D41A), &[]),
        "mathcal" | "mathscr" => (
            0x1D49C,
            None,
            &[
                ('B', 'ℬ'),
                ('E', 'ℰ'),
                ('F', 'ℱ'),
                ('H', 'ℋ'),
                ('I', 'ℐ'),
                ('L', 'ℒ'),
                ('M', 'ℳ'),
                ('R', 'ℛ'),
            ],
        ),
        _ => return None,
    };
    if let Some(&(_, hole)) = holes.iter().find(|(from, _)| *from == c) {
        return Some(hole);
    }
    let base = if c.is_ascii_uppercase() {
        upper + (c as u32 - 'A' as u32)
    } else if c.is_ascii_lowercase() {
        lower? + (c as u32 - 'a' as u32)
    } else if font == "mathbf" && c.is_ascii_digit() {
        0x1D7CE + (c as u32 - '0' as u32)
    } else {
        return Some(c);
    };
    char::from_u32(base)
}
