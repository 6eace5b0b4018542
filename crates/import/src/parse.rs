//! Parsing an import body: NDJSON (one band object per line, blank lines ignored) or one
//! JSON array of band objects. Keys are the column names (CONTRACT §11); an unknown key, a
//! wrong type or an invalid value rejects the whole input, naming the line or element.
//! Text is cleaned of control characters and bounded.

use crate::text::clean_text;
use bandmap_db::bands::upsert::BandInput;
use serde::de::{DeserializeSeed, Deserializer, Error as _, SeqAccess, Visitor};
use std::io::BufRead;

/// Earliest accepted `formed_year`.
pub const YEAR_MIN: i32 = 1900;

/// Why an input was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{place}: {message}")]
pub struct InvalidInput {
    /// `line N` (NDJSON) or `element N` (array), 1-based.
    pub place: String,
    /// What is wrong.
    pub message: String,
}

/// Parses and validates a whole body held in memory; `max_year` bounds `formed_year`.
pub fn parse_bands(body: &[u8], max_year: i32) -> Result<Vec<BandInput>, InvalidInput> {
    parse_reader(body, max_year).map_err(|e| match e {
        ReadError::Invalid(e) => e,
        // A slice cannot fail to read; kept total all the same.
        ReadError::Io(e) => InvalidInput {
            place: "body".into(),
            message: e.to_string(),
        },
    })
}

/// Why [`parse_reader`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The input is invalid.
    #[error(transparent)]
    Invalid(#[from] InvalidInput),
    /// The input could not be read (a cut connection, a body over its limit).
    #[error("cannot read the input: {0}")]
    Io(#[from] std::io::Error),
}

/// Parses and validates an input as it is read (issue 18: an import is never held whole in
/// memory, only its validated bands): one JSON array read element by element, or NDJSON
/// read line by line. A UTF-8 byte-order mark is skipped.
pub fn parse_reader(mut reader: impl BufRead, max_year: i32) -> Result<Vec<BandInput>, ReadError> {
    skip_bom(&mut reader)?;
    let first = loop {
        let buf = reader.fill_buf()?;
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(i) => {
                let first = buf[i];
                reader.consume(i);
                break Some(first);
            }
            None if buf.is_empty() => break None,
            None => {
                let n = buf.len();
                reader.consume(n);
            }
        }
    };
    if first == Some(b'[') {
        parse_array(reader, max_year)
    } else {
        parse_ndjson(reader, max_year)
    }
}

fn skip_bom(reader: &mut impl BufRead) -> std::io::Result<()> {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let mut matched = 0;
    while matched < BOM.len() {
        let buf = reader.fill_buf()?;
        let Some(b) = buf.first() else {
            return Ok(());
        };
        if *b != BOM[matched] {
            // A partial mark is not one; the reader has only consumed mark bytes, which
            // no valid JSON or NDJSON starts with, so the body is invalid either way.
            return if matched == 0 {
                Ok(())
            } else {
                Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "the body starts with a broken byte-order mark",
                ))
            };
        }
        reader.consume(1);
        matched += 1;
    }
    Ok(())
}

/// Deserializes the elements of the array one at a time; the first invalid one stops the
/// read with its place kept aside (serde's error carries text only).
struct Elements<'a> {
    max_year: i32,
    out: &'a mut Vec<BandInput>,
    invalid: &'a mut Option<InvalidInput>,
}

impl<'de> DeserializeSeed<'de> for Elements<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Elements<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON array of band objects")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        while let Some(v) = seq.next_element::<serde_json::Value>()? {
            i += 1;
            let place = format!("element {i}");
            let band = serde_json::from_value::<BandInput>(v)
                .map_err(|e| e.to_string())
                .and_then(|b| validate(b, self.max_year));
            match band {
                Ok(b) => self.out.push(b),
                Err(message) => {
                    *self.invalid = Some(InvalidInput { place, message });
                    return Err(A::Error::custom("invalid element"));
                }
            }
        }
        Ok(())
    }
}

fn parse_array(reader: impl BufRead, max_year: i32) -> Result<Vec<BandInput>, ReadError> {
    // `[` was peeked, not consumed: the deserializer reads the array from its start.
    let mut out = Vec::new();
    let mut invalid = None;
    let mut de = serde_json::Deserializer::from_reader(reader);
    let read = Elements {
        max_year,
        out: &mut out,
        invalid: &mut invalid,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end());
    if let Some(e) = invalid {
        return Err(e.into());
    }
    match read {
        Ok(()) => Ok(out),
        Err(e) if e.is_io() => Err(ReadError::Io(e.into())),
        Err(e) => Err(InvalidInput {
            place: "body".into(),
            message: format!("not a JSON array: {e}"),
        }
        .into()),
    }
}

fn parse_ndjson(mut reader: impl BufRead, max_year: i32) -> Result<Vec<BandInput>, ReadError> {
    let mut out = Vec::new();
    let mut line = Vec::new();
    for i in 1.. {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let place = || format!("line {i}");
        let band: BandInput = serde_json::from_slice(&line).map_err(|e| InvalidInput {
            place: place(),
            message: e.to_string(),
        })?;
        out.push(validate(band, max_year).map_err(|message| InvalidInput {
            place: place(),
            message,
        })?);
    }
    Ok(out)
}

/// Cleans a text value: control characters removed, trimmed, blank → None, bounded.
fn text(
    name: &str,
    v: Option<String>,
    max: usize,
    keep_newlines: bool,
) -> Result<Option<String>, String> {
    let Some(v) = v else {
        return Ok(None);
    };
    let cleaned = clean_text(&v, keep_newlines).trim().to_string();
    if cleaned.chars().count() > max {
        return Err(format!("{name} must be at most {max} characters"));
    }
    Ok(Some(cleaned).filter(|s| !s.is_empty()))
}

/// Imports keep the crawl's scope (SPEC §3, issue 19 "Also"): a band whose country (by its
/// code, else its name, as the crawler judges a listed row) is not European is refused like
/// any invalid record, so nothing is written. A band with neither is accepted (a partial
/// update of a known band).
fn european(code: Option<&str>, name: Option<&str>) -> Result<(), String> {
    match code.or(name) {
        Some(c) if !bandmap_location::countries::is_european(c) => Err(format!(
            "country {c} is not European: the map keeps European bands only, as the crawl"
        )),
        _ => Ok(()),
    }
}

fn validate(b: BandInput, max_year: i32) -> Result<BandInput, String> {
    if b.ma_id <= 0 {
        return Err("ma_id must be a positive integer".into());
    }
    let name = text("name", Some(b.name), 300, false)?.ok_or("name cannot be empty")?;
    let country_code = match text("country_code", b.country_code, 2, false)? {
        Some(c) if c.len() == 2 && c.bytes().all(|b| b.is_ascii_alphabetic()) => {
            Some(c.to_ascii_uppercase())
        }
        Some(_) => return Err("country_code must be two letters (ISO 3166-1 alpha-2)".into()),
        None => None,
    };
    if let Some(y) = b.formed_year
        && !(YEAR_MIN..=max_year).contains(&y)
    {
        return Err(format!(
            "formed_year must be between {YEAR_MIN} and {max_year}"
        ));
    }
    let url = text("url", b.url, 2000, false)?;
    if let Some(u) = &url
        && !(u.starts_with("https://") || u.starts_with("http://"))
    {
        return Err("url must start with http:// or https://".into());
    }
    let country = text("country", b.country, 100, false)?;
    european(country_code.as_deref(), country.as_deref())?;
    Ok(BandInput {
        ma_id: b.ma_id,
        name,
        country,
        country_code,
        location_text: text("location_text", b.location_text, 1000, false)?,
        genre: text("genre", b.genre, 300, false)?,
        themes: text("themes", b.themes, 1000, true)?,
        status: text("status", b.status, 100, false)?,
        formed_year: b.formed_year,
        label: text("label", b.label, 300, false)?,
        url,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ndjson_and_array_give_the_same_bands() {
        let nd = b"{\"ma_id\": 1, \"name\": \"A\"}\n\n  \r\n{\"ma_id\": 2, \"name\": \"B\", \"country_code\": \"no\"}\r\n";
        let arr =
            br#" [{"ma_id": 1, "name": "A"}, {"ma_id": 2, "name": "B", "country_code": "no"}]"#;
        let a = parse_bands(nd, 2027).unwrap();
        let b = parse_bands(arr, 2027).unwrap();
        assert_eq!(a.len(), 2);
        assert_eq!(b.len(), 2);
        assert_eq!(a[1].country_code.as_deref(), Some("NO"));
        assert_eq!(b[1].name, "B");
        assert!(parse_bands(b"", 2027).unwrap().is_empty());
        let bom = b"\xEF\xBB\xBF[{\"ma_id\": 3, \"name\": \"C\"}]";
        assert_eq!(parse_bands(bom, 2027).unwrap()[0].ma_id, 3);
    }

    /// A reader handing out one byte at a time, like a body arriving in small chunks.
    struct Trickle<'a>(&'a [u8]);

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let Some((first, rest)) = self.0.split_first() else {
                return Ok(0);
            };
            if buf.is_empty() {
                return Ok(0);
            }
            buf[0] = *first;
            self.0 = rest;
            Ok(1)
        }
    }

    #[test]
    fn a_trickled_reader_gives_the_same_bands_and_errors() {
        let arr = b"\xEF\xBB\xBF \n[{\"ma_id\": 1, \"name\": \"A\"},\n {\"ma_id\": 2, \"name\": \"B\"}] \n";
        let r = std::io::BufReader::with_capacity(1, Trickle(arr));
        let bands = parse_reader(r, 2027).unwrap();
        assert_eq!(bands.iter().map(|b| b.ma_id).collect::<Vec<_>>(), [1, 2]);
        let nd = b"{\"ma_id\": 1, \"name\": \"A\"}\n{\"ma_id\": 2, \"name\": \"B\", \"x\": 1}\n";
        let r = std::io::BufReader::with_capacity(1, Trickle(nd));
        match parse_reader(r, 2027) {
            Err(ReadError::Invalid(e)) => assert_eq!(e.place, "line 2"),
            other => panic!("{other:?}"),
        }
        let r = std::io::BufReader::with_capacity(
            1,
            Trickle(b"[{\"ma_id\": 1, \"name\": \"A\"}, {\"ma_id\": 1}]"),
        );
        match parse_reader(r, 2027) {
            Err(ReadError::Invalid(e)) => assert_eq!(e.place, "element 2"),
            other => panic!("{other:?}"),
        }
        for bad in [
            &b"[1, 2"[..],
            b"[{\"ma_id\": 1, \"name\": \"A\"}] trailing",
            b"\xEF\xBBx",
        ] {
            let r = std::io::BufReader::with_capacity(1, Trickle(bad));
            assert!(
                parse_reader(r, 2027).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn non_european_bands_are_refused_like_the_crawl_filters_them() {
        for body in [
            &br#"{"ma_id": 1, "name": "Slayer", "country_code": "US"}"#[..],
            &br#"{"ma_id": 1, "name": "Sepultura", "country": "Brazil"}"#[..],
            &br#"{"ma_id": 1, "name": "X", "country": "International"}"#[..],
        ] {
            let e = parse_bands(body, 2030).unwrap_err();
            assert!(e.to_string().contains("not European"), "{e}");
        }
        for body in [
            &br#"{"ma_id": 1, "name": "Mayhem", "country_code": "no"}"#[..],
            &br#"{"ma_id": 1, "name": "Bathory", "country": "Sweden"}"#[..],
            &br#"{"ma_id": 1, "name": "Partial"}"#[..],
        ] {
            assert!(parse_bands(body, 2030).is_ok());
        }
    }

    #[test]
    fn errors_name_their_line() {
        let e = parse_bands(
            b"{\"ma_id\": 1, \"name\": \"A\"}\n{\"ma_id\": 2, \"name\": \"B\", \"bogus\": 1}",
            2027,
        )
        .unwrap_err();
        assert_eq!(e.place, "line 2");
        assert!(e.message.contains("bogus"), "{}", e.message);
        let e = parse_bands(br#"[{"ma_id": 1}]"#, 2027).unwrap_err();
        assert_eq!(e.place, "element 1");
        for bad in [
            &br#"{"ma_id": 0, "name": "A"}"#[..],
            br#"{"ma_id": -4, "name": "A"}"#,
            br#"{"ma_id": "7", "name": "A"}"#,
            br#"{"ma_id": 7, "name": "  "}"#,
            br#"{"ma_id": 7, "name": "A", "formed_year": 1492}"#,
            br#"{"ma_id": 7, "name": "A", "formed_year": 3000}"#,
            br#"{"ma_id": 7, "name": "A", "country_code": "NOR"}"#,
            br#"{"ma_id": 7, "name": "A", "url": "javascript:alert(1)"}"#,
            b"{\"ma_id\": 7, \"name\": \"A\"",
            b"[1, 2]",
        ] {
            assert!(
                parse_bands(bad, 2027).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        let long = format!(r#"{{"ma_id": 7, "name": "{}"}}"#, "x".repeat(301));
        assert!(parse_bands(long.as_bytes(), 2027).is_err());
    }

    #[test]
    fn control_characters_are_removed() {
        let b = parse_bands(
            br#"{"ma_id": 7, "name": "Ma\u0000yhem\u001b", "themes": "War\nDeath\u0007", "genre": ""}"#,
            2027,
        )
        .unwrap();
        assert_eq!(b[0].name, "Mayhem");
        assert_eq!(b[0].themes.as_deref(), Some("War\nDeath"));
        assert_eq!(b[0].genre, None);
    }
}
