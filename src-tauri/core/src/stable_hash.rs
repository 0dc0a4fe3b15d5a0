//! A hash that is the same across runs, platforms and Rust versions
//! (unlike `DefaultHasher`), for names and keys that are stored or shown:
//! spilled-result file names, MCP tool and keychain account names,
//! transcript head checks. Not for security: use SHA-256 where an
//! adversary picks the input.

/// FNV-1a, 64 bits.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_never_change() {
        // The published FNV-1a 64 test vectors: stored names depend on them.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
