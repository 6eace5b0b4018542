//! The text of a caught panic.

use std::any::Any;

/// The message a panic was raised with (`panic!("…")`), or `unknown panic`.
pub fn panic_message(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_str_and_string_payloads() {
        let caught = std::panic::catch_unwind(|| panic!("boom {}", 1));
        let text = caught.err().map(|p| panic_message(p.as_ref()));
        assert_eq!(text.as_deref(), Some("boom 1"));
        let caught = std::panic::catch_unwind(|| std::panic::panic_any(7_u8));
        let text = caught.err().map(|p| panic_message(p.as_ref()));
        assert_eq!(text.as_deref(), Some("unknown panic"));
    }
}
