//! Content hashes: git's blob hash of a text, which names cached replies, approved
//! criteria and a work's state, and which `git hash-object --stdin` gives too.

/// The hex blob hash of `text` (as `git hash-object --stdin` prints it).
pub fn blob(text: &str) -> String {
    blob_bytes(text.as_bytes())
}

/// The hex blob hash of `bytes` (as `git hash-object` prints it for a file of them).
pub fn blob_bytes(bytes: &[u8]) -> String {
    gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, bytes)
        .map(|id| id.to_string())
        .unwrap_or_default()
}

/// The hex HMAC-SHA1 of `message` under `key` (RFC 2104): what binds a cache entry to the
/// vermas that wrote it (see [`crate::git::GitRepo::cache_key`]).
pub fn mac(key: &[u8], message: &[u8]) -> String {
    const BLOCK: usize = 64;
    let sha1 = |parts: &[&[u8]]| -> Vec<u8> {
        let mut h = gix::hash::hasher(gix::hash::Kind::Sha1);
        for p in parts {
            h.update(p);
        }
        h.try_finalize()
            .map(|id| id.as_bytes().to_vec())
            .unwrap_or_default()
    };
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        let k = sha1(&[key]);
        block[..k.len()].copy_from_slice(&k);
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let inner_key: Vec<u8> = block.iter().map(|b| b ^ 0x36).collect();
    let outer_key: Vec<u8> = block.iter().map(|b| b ^ 0x5c).collect();
    let inner = sha1(&[&inner_key, message]);
    sha1(&[&outer_key, &inner])
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn mac_is_rfc_2202_hmac_sha1() {
        // RFC 2202, test cases 1 and 2.
        assert_eq!(
            super::mac(&[0x0b; 20], b"Hi There"),
            "b617318655057264e28bc0b6fb378c8ef146be00"
        );
        assert_eq!(
            super::mac(b"Jefe", b"what do ya want for nothing?"),
            "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"
        );
    }
}
