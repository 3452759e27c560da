//! The key vermas binds its caches with: 32 random bytes in the repository's own git
//! folder (`<git-common-dir>/vermas/cache.key`, mode 0600), outside every work tree. A
//! cached judge reply or pre-push stamp carries the MAC of its content under this key, so
//! an entry a worker wrote into `.beads/.cache/` (which it can) is not vermas's and is
//! ignored.

use super::GitRepo;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

impl GitRepo {
    /// The cache key of this repository, made the first time it is asked for; `None` when
    /// it can be neither read nor made (then nothing is taken from a cache).
    pub fn cache_key(&self) -> Option<Vec<u8>> {
        static KNOWN: Mutex<Vec<(PathBuf, Vec<u8>)>> = Mutex::new(Vec::new());
        let dir = self.repo.common_dir().join("vermas");
        let mut known = KNOWN.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, key)) = known.iter().find(|(d, _)| *d == dir) {
            return Some(key.clone());
        }
        let key = self.read_or_make_key(&dir)?;
        known.push((dir, key.clone()));
        Some(key)
    }

    /// The key in `dir`, made when there is none (the first one made wins a race).
    fn read_or_make_key(&self, dir: &Path) -> Option<Vec<u8>> {
        let path = dir.join("cache.key");
        if let Ok(key) = std::fs::read(&path)
            && key.len() == 32
        {
            return Some(key);
        }
        let mut key = [0u8; 32];
        let n = rustix::rand::getrandom(&mut key, rustix::rand::GetRandomFlags::empty()).ok()?;
        if n != key.len() {
            return None;
        }
        std::fs::create_dir_all(dir).ok()?;
        let tmp = dir.join(format!(
            "cache.key.{}.{:02x}{:02x}",
            std::process::id(),
            key[0],
            key[1]
        ));
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .ok()?;
        file.write_all(&key).ok()?;
        drop(file);
        // Another process may have made one meanwhile: the first one stays, and is used.
        if std::fs::hard_link(&tmp, &path).is_err() {
            let _ = std::fs::remove_file(&tmp);
            return std::fs::read(&path).ok().filter(|k| k.len() == 32);
        }
        let _ = std::fs::remove_file(&tmp);
        Some(key.to_vec())
    }
}
