//! Just enough of nginx's configuration syntax to check the example: directives, blocks,
//! quoted arguments, comments, and prefix / exact `location` matching. (No maintained
//! crate parses nginx configuration.)

/// One directive; `block` holds the children of a block directive (`http { … }`).
#[derive(Debug)]
pub struct Directive {
    /// Its name, e.g. `proxy_pass`.
    pub name: String,
    /// Its arguments, quotes removed.
    pub args: Vec<String>,
    /// Children of a block directive.
    pub block: Option<Vec<Directive>>,
}

impl Directive {
    /// The children named `name`.
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Directive> + 'a {
        self.block.iter().flatten().filter(move |d| d.name == name)
    }

    /// The first child named `name`.
    pub fn first<'a>(&'a self, name: &'a str) -> Option<&'a Directive> {
        self.all(name).next()
    }
}

fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '#' {
            while chars.next().is_some_and(|c| c != '\n') {}
        } else if matches!(c, '{' | '}' | ';') {
            out.push(c.to_string());
            chars.next();
        } else if c == '"' || c == '\'' {
            chars.next();
            out.push(chars.by_ref().take_while(|&q| q != c).collect());
        } else {
            let mut word = String::new();
            while let Some(&w) = chars.peek() {
                if w.is_whitespace() || matches!(w, '{' | '}' | ';') {
                    break;
                }
                word.push(w);
                chars.next();
            }
            out.push(word);
        }
    }
    out
}

/// Parses a whole configuration file into its top-level directives.
pub fn parse(text: &str) -> Vec<Directive> {
    let tokens = tokens(text);
    let mut at = 0;
    let top = parse_block(&tokens, &mut at);
    assert_eq!(at, tokens.len(), "unbalanced braces");
    top
}

fn parse_block(tokens: &[String], at: &mut usize) -> Vec<Directive> {
    let mut out = Vec::new();
    while *at < tokens.len() && tokens[*at] != "}" {
        let name = tokens[*at].clone();
        *at += 1;
        let mut args = Vec::new();
        while *at < tokens.len() && tokens[*at] != ";" && tokens[*at] != "{" {
            args.push(tokens[*at].clone());
            *at += 1;
        }
        let block = if tokens.get(*at).map(String::as_str) == Some("{") {
            *at += 1;
            let children = parse_block(tokens, at);
            assert_eq!(
                tokens.get(*at).map(String::as_str),
                Some("}"),
                "{name}: no }}"
            );
            Some(children)
        } else {
            assert_eq!(
                tokens.get(*at).map(String::as_str),
                Some(";"),
                "{name}: no ;"
            );
            None
        };
        *at += 1;
        out.push(Directive { name, args, block });
    }
    out
}

/// The `location` of `server` that nginx picks for `path`: an exact (`=`) match, else the
/// longest prefix. Regular-expression locations are refused (the example has none).
pub fn location_for<'a>(server: &'a Directive, path: &str) -> Option<&'a Directive> {
    let locations: Vec<&Directive> = server.all("location").collect();
    for l in &locations {
        assert!(
            !l.args.iter().any(|a| a.starts_with('~')),
            "regex location {:?}: extend this matcher",
            l.args
        );
    }
    if let Some(exact) = locations
        .iter()
        .find(|l| l.args.len() == 2 && l.args[0] == "=" && l.args[1] == path)
    {
        return Some(exact);
    }
    locations
        .into_iter()
        .filter_map(|l| match l.args.as_slice() {
            [prefix] | [_, prefix] if l.args[0] != "=" && path.starts_with(prefix.as_str()) => {
                Some((prefix.len(), l))
            }
            _ => None,
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, l)| l)
}

/// The arguments of the `name` directives in effect in `levels` (innermost first): nginx
/// array directives such as `proxy_set_header` and `add_header` are inherited from the
/// enclosing level only when a level defines none of its own.
pub fn effective<'a>(levels: &[&'a Directive], name: &'a str) -> Vec<&'a [String]> {
    levels
        .iter()
        .map(|level| {
            level
                .all(name)
                .map(|d| d.args.as_slice())
                .collect::<Vec<_>>()
        })
        .find(|own| !own.is_empty())
        .unwrap_or_default()
}
