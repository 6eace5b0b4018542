//! JSON bodies as they come back through the solver: Chrome shows a JSON URL in its viewer,
//! so the body is `<html>…<pre>{…}</pre>…</html>` with entities escaped; recorded pages may be
//! raw JSON. MA also emits `"sEcho": ,` when the request lacks `sEcho`.

use super::text::{decode, strip_tags};
use super::{ParseError, snippet};

/// Read the JSON document of a body: the text of the first `<pre>` (entities unescaped), else
/// the raw body (or its text with tags stripped). Only objects and arrays count as JSON: an
/// empty body, `0`, `Forbidden.`, an HTML page or any other text is [`ParseError::NotJson`].
pub fn unwrap_json(body: &str) -> Result<serde_json::Value, ParseError> {
    let not_json = || ParseError::NotJson {
        snippet: snippet(body.trim()),
    };
    let trimmed = body.trim();
    if trimmed.is_empty() {
        return Err(not_json());
    }
    let candidate = match pre_text(trimmed) {
        Some(inner) => decode(inner),
        None if trimmed.starts_with('<') => strip_tags(trimmed),
        None => trimmed.to_owned(),
    };
    let fixed = fix_empty_secho(candidate.trim());
    match serde_json::from_str::<serde_json::Value>(&fixed) {
        Ok(v @ (serde_json::Value::Object(_) | serde_json::Value::Array(_))) => Ok(v),
        _ => Err(not_json()),
    }
}

/// Inner HTML of the first `<pre …>…</pre>` (tags inside it removed later by decoding only:
/// Chrome puts none there).
fn pre_text(body: &str) -> Option<&str> {
    let lower = body.to_ascii_lowercase();
    let mut from = 0;
    let open = loop {
        let i = from + lower[from..].find("<pre")?;
        let next = lower[i + 4..].chars().next();
        if matches!(next, Some(c) if c == '>' || c.is_ascii_whitespace()) {
            break i;
        }
        from = i + 4;
    };
    let start = open + lower[open..].find('>')? + 1;
    let end = lower[start..]
        .find("</pre")
        .map_or(body.len(), |i| start + i);
    Some(&body[start..end])
}

/// Replace MA's broken `"sEcho": ,` (no value) with `"sEcho": null,`.
fn fix_empty_secho(json: &str) -> String {
    const KEY: &str = "\"sEcho\"";
    let Some(at) = json.find(KEY) else {
        return json.to_owned();
    };
    let after_key = at + KEY.len();
    let rest = &json[after_key..];
    let Some(colon_rel) = rest.find(':') else {
        return json.to_owned();
    };
    if !rest[..colon_rel].trim().is_empty() {
        return json.to_owned();
    }
    let value_start = after_key + colon_rel + 1;
    let value = json[value_start..].trim_start();
    if value.starts_with(',') || value.starts_with('}') {
        let mut out = String::with_capacity(json.len() + 5);
        out.push_str(&json[..value_start]);
        out.push_str(" null");
        out.push_str(&json[value_start..]);
        out
    } else {
        json.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_and_wrapped() {
        let raw = r#"{"iTotalRecords": 1, "aaData": [["<a href='x'>A &amp; B</a>"]]}"#;
        let wrapped = format!(
            "<html><head></head><body><pre style=\"word-wrap: break-word;\">{}</pre></body></html>",
            html_escape::encode_text(raw)
        );
        assert_eq!(unwrap_json(raw).unwrap(), unwrap_json(&wrapped).unwrap());
    }

    #[test]
    fn failure_bodies_are_not_json() {
        for body in [
            "",
            "   ",
            "0",
            "Forbidden.",
            "<html><body>Error</body></html>",
            "\"x\"",
            "<pre></pre>",
        ] {
            assert!(unwrap_json(body).unwrap_err().is_not_json(), "{body:?}");
        }
    }

    #[test]
    fn empty_secho_is_tolerated() {
        let v = unwrap_json(r#"{"iTotalRecords": 3, "sEcho": , "aaData": []}"#).unwrap();
        assert_eq!(v["iTotalRecords"], 3);
        assert!(v["sEcho"].is_null());
    }
}
