//! Challenge and block pages, recognised by their `<title>` the way FlareSolverr does
//! (`CHALLENGE_TITLES`, `ACCESS_DENIED_TITLES`).

use super::text::{decode, squash};

/// Which kind of interstitial page came back instead of the upstream page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlockKind {
    /// Cloudflare's JavaScript challenge (`Just a moment...`).
    Challenge,
    /// DDoS-Guard's challenge page.
    DdosGuard,
    /// Cloudflare's hard block (`Attention Required! | Cloudflare`).
    CloudflareBlock,
    /// A generic `Access denied` page.
    AccessDenied,
}

impl BlockKind {
    /// Short stable name for logs and error messages.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Challenge => "challenge",
            Self::DdosGuard => "ddos-guard",
            Self::CloudflareBlock => "cloudflare-block",
            Self::AccessDenied => "access-denied",
        }
    }
}

impl std::fmt::Display for BlockKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The kind of challenge or block page `html` is, or `None` for an ordinary page.
#[must_use]
pub fn block_page(html: &str) -> Option<BlockKind> {
    let title = title(html)?;
    let t = title.as_str();
    if t.starts_with("Just a moment") {
        Some(BlockKind::Challenge)
    } else if t.starts_with("DDoS-Guard") {
        Some(BlockKind::DdosGuard)
    } else if t.starts_with("Attention Required!") && t.contains("Cloudflare") {
        Some(BlockKind::CloudflareBlock)
    } else if t.starts_with("Access denied") {
        Some(BlockKind::AccessDenied)
    } else {
        None
    }
}

/// Text of the first `<title>` element.
fn title(html: &str) -> Option<String> {
    // Titles live in the head: a bounded prefix keeps this cheap on large pages.
    let mut end = html.len().min(64 * 1024);
    while !html.is_char_boundary(end) {
        end -= 1;
    }
    let head = &html[..end];
    let lower = head.to_ascii_lowercase();
    let open = lower.find("<title")?;
    let start = open + lower[open..].find('>')? + 1;
    let stop = lower[start..]
        .find("</title")
        .map_or(head.len(), |i| start + i);
    Some(squash(&decode(&head[start..stop])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles() {
        let page = |t: &str| format!("<html><head><title>{t}</title></head><body></body></html>");
        assert_eq!(
            block_page(&page("Just a moment...")),
            Some(BlockKind::Challenge)
        );
        assert_eq!(
            block_page(&page("Attention Required! | Cloudflare")),
            Some(BlockKind::CloudflareBlock)
        );
        assert_eq!(
            block_page(&page(
                "Access denied | www.metal-archives.com used Cloudflare"
            )),
            Some(BlockKind::AccessDenied)
        );
        assert_eq!(block_page(&page("DDoS-Guard")), Some(BlockKind::DdosGuard));
        assert_eq!(
            block_page(&page("Darkthrone - Encyclopaedia Metallum")),
            None
        );
        assert_eq!(block_page("{\"a\":1}"), None);
    }
}
