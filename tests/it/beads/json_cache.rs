//! The JSON cache (`.beads/.cache/json`): each bead's JSON as a long `list --json` /
//! `ready --json` shows it, copied out without opening every bead's file. An entry is
//! read when its stamp matches its file, never trusted over the files (a hand edit is seen
//! at once, same size and time included), and a missing or corrupt cache is rebuilt
//! silently, with the same output.

use super::touch_old;
use crate::common::{Repo, stderr, stdout};
use std::process::Command;
use std::time::Duration;

const CACHE: &str = ".beads/.cache/json";

/// More beads than a listing reads one by one from their files.
const BEADS: usize = 80;

/// The file of bead number `n`.
fn rel(n: usize) -> String {
    format!(".beads/issues/vm-t{n:02}.md")
}

/// A repository of [`BEADS`] open beads with descriptions, some with notes, labels and
/// dependencies, all old enough to be cached; the caches are written.
fn cached_repo() -> Repo {
    let repo = Repo::initialised();
    for n in 0..BEADS {
        let mut text = format!(
            "---\nid: vm-t{n:02}\ntitle: \"Bead {n}: tab\\there\"\nstatus: open\npriority: {}\n\
             created_at: 2026-01-01T10:{:02}:00Z\n",
            n % 5,
            n % 60
        );
        if n % 3 == 0 {
            text.push_str("labels: [area:ui, perf]\n");
        }
        if n % 4 == 1 {
            text.push_str(&format!(
                "dependencies:\n  - {{depends_on_id: vm-t{:02}, type: related}}\n",
                n - 1
            ));
        }
        if n % 2 == 0 {
            text.push_str(&format!(
                "notes:\n  - {{at: 2026-01-03T10:00:00Z, by: ann, text: \"Note {n}\\nsecond line\"}}\n"
            ));
        }
        text.push_str(&format!(
            "---\nDescription of bead {n}: \"quoted\", \\ and \u{e9}.\n\n- [ ] step\n"
        ));
        repo.write(&rel(n), &text);
        touch_old(&repo, &rel(n));
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "beads by hand"]);
    // Past the two-second racy window: the files may be cached.
    std::thread::sleep(Duration::from_millis(2100));
    // An older version's cache for the same listings.
    repo.write(".beads/.cache/tails", "vermas-tails 2\n");
    let first = listings(&repo);
    assert!(repo.join(CACHE).exists(), "a long listing caches the JSON");
    assert!(
        !repo.join(".beads/.cache/tails").exists(),
        "the old cache is removed"
    );
    assert_eq!(listings(&repo), first, "answered from the cache alike");
    // The writer noted the stamp of the file it wrote: size, times, inode.
    use std::os::unix::fs::MetadataExt;
    let md = std::fs::metadata(repo.join(CACHE)).expect("cache");
    let noted = repo.read(".beads/.cache/json.stamp");
    let fields: Vec<&str> = noted.trim_end_matches('\n').split('\t').collect();
    assert_eq!(fields.len(), 5, "{noted:?}");
    assert_eq!(fields[0], md.size().to_string());
    assert_eq!(fields[3], md.ino().to_string());
    repo
}

/// What a long JSON listing answers: `list --json -n 0` and `ready --json -n 0`.
fn listings(repo: &Repo) -> [String; 2] {
    [
        &["list", "-n", "0", "--json"][..],
        &["ready", "-n", "0", "--json"],
    ]
    .map(|args| {
        let o = repo.run(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{args:?} warned");
        stdout(&o)
    })
}

/// The ids of the cache's entries (its table: a line per entry after the header and the
/// count), sorted.
fn cached_ids(repo: &Repo) -> Vec<String> {
    let text = repo.read(CACHE);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(HEADER), "{text}");
    let count: usize = lines.next().expect("count").parse().expect("a count");
    let mut ids: Vec<String> = lines
        .take(count)
        .map(|l| l.split('\t').next().unwrap_or("").to_string())
        .collect();
    ids.sort();
    ids
}

/// The cache's first line.
const HEADER: &str = "vermas-json 1";

#[test]
fn a_long_listing_is_the_pretty_json_of_the_files() {
    let repo = cached_repo();
    let [list, ready] = listings(&repo);
    let v: serde_json::Value = serde_json::from_str(&list).expect("json");
    assert_eq!(v.as_array().unwrap().len(), BEADS);
    // The same text as the beads `show --json` reads from the files, element by element.
    let one = repo.ok(&["show", "vm-t04", "--json"]);
    let shown: serde_json::Value = serde_json::from_str(&one).expect("json");
    let listed = v
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == "vm-t04")
        .unwrap();
    assert_eq!(listed, &shown[0]);
    assert_eq!(listed["notes"][0]["text"], "Note 4\nsecond line");
    assert!(
        listed["description"]
            .as_str()
            .unwrap()
            .contains("\\ and \u{e9}")
    );
    assert!(ready.starts_with("[\n  {\n    \"id\": \"vm-t"), "{ready}");
    assert_eq!(cached_ids(&repo).len(), BEADS);
}

#[test]
fn the_cache_is_read_when_its_stamp_matches() {
    let repo = cached_repo();
    // Change a description in the cache only (same length: the entry's length holds): its
    // stamp still matches the file, so the listing takes it as it is (the file is not
    // read)...
    let (from, to) = ("Description of bead 7:", "From the cache bead 7:");
    assert_eq!(from.len(), to.len());
    let text = repo.read(CACHE).replace(from, to);
    repo.write(CACHE, &text);
    let [list, ready] = listings(&repo);
    assert!(list.contains(to), "{list}");
    assert!(ready.contains(to), "{ready}");
    // ...while `show` reads the file itself.
    assert!(
        repo.ok(&["show", "vm-t07"])
            .contains("Description of bead 7:")
    );
}

#[test]
fn a_hand_edit_of_a_cached_field_is_seen_at_once() {
    let repo = cached_repo();
    let before = listings(&repo);
    // Same length, same modification time: only the change time tells.
    for (n, from, to) in [
        (7, "Description of bead 7", "Edited by hand bead 7"),
        (8, "Note 8", "Nota 8"),
    ] {
        let text = repo.read(&rel(n));
        assert_eq!(from.len(), to.len());
        repo.write(&rel(n), &text.replace(from, to));
        touch_old(&repo, &rel(n));
    }
    let after = listings(&repo);
    for answer in &after {
        assert!(answer.contains("Edited by hand bead 7"), "{answer}");
        assert!(answer.contains("Nota 8") && !answer.contains("\"Note 8"));
    }
    assert_ne!(before, after);
    // Once settled, the edits are cached and still shown.
    std::thread::sleep(Duration::from_millis(2100));
    assert_eq!(listings(&repo), after);
    assert!(repo.read(CACHE).contains("Edited by hand bead 7"));
    // The other entries were kept from the cache as it was: every bead still has one.
    assert_eq!(cached_ids(&repo).len(), BEADS);
    assert_eq!(listings(&repo), after);
}

#[test]
fn a_corrupt_cache_is_rebuilt_silently() {
    let repo = cached_repo();
    let before = listings(&repo);
    let good = repo.read(CACHE);
    let line = good
        .lines()
        .find(|l| l.starts_with("vm-t05\t"))
        .expect("line")
        .to_string();
    let count_line = format!("\n{BEADS}\n");
    let element = "  {\n    \"id\": \"vm-t05\"";
    assert!(good.contains(element), "{good}");
    let corruptions: Vec<(&str, Vec<u8>)> = vec![
        ("garbage", b"\x00\xff\xfe not a cache \n\t\t\n".to_vec()),
        ("empty", Vec::new()),
        ("truncated", good.as_bytes()[..good.len() / 2].to_vec()),
        (
            "old header",
            good.replacen(HEADER, "vermas-json 0", 1).into_bytes(),
        ),
        (
            "count too high",
            good.replacen(&count_line, &format!("\n{}\n", BEADS + 1), 1)
                .into_bytes(),
        ),
        (
            "cut line",
            good.replacen(&line, &line[..line.len() - 1], 1)
                .into_bytes(),
        ),
        (
            "bad stamp",
            good.replacen(&line, &line.replacen('\t', "\t-x", 1), 1)
                .into_bytes(),
        ),
        (
            "not an object",
            good.replacen(element, &element.replacen('{', "[", 1), 1)
                .into_bytes(),
        ),
        ("a byte more", format!("{good}x").into_bytes()),
        (
            "not UTF-8",
            // Every description holds an é (0xc3 0xa9): its second byte is broken.
            good.bytes()
                .map(|b| if b == 0xa9 { 0xff } else { b })
                .collect(),
        ),
    ];
    for (what, bytes) in corruptions {
        std::fs::write(repo.join(CACHE), &bytes).expect("write cache");
        assert_eq!(listings(&repo), before, "{what}");
        // Rebuilt: every bead has its entry again.
        assert_eq!(cached_ids(&repo).len(), BEADS, "{what}");
        assert_eq!(listings(&repo), before, "{what}, rebuilt");
    }
}

#[test]
fn a_big_cache_gives_every_element() {
    // Over a megabyte of entries, taken from the cache without reading the files.
    const MANY: usize = 1500;
    let repo = Repo::initialised();
    let body = "A long description line that makes each entry big. ".repeat(18);
    let mut paths = Vec::new();
    for n in 0..MANY {
        let rel = format!(".beads/issues/vm-b{n:04}.md");
        repo.write(
            &rel,
            &format!("---\nid: vm-b{n:04}\ntitle: Big {n}\nstatus: open\n---\nBead {n}. {body}\n"),
        );
        paths.push(repo.join(&rel));
    }
    let ok = Command::new("touch")
        .args(["-d", "2020-01-01 00:00:00"])
        .args(&paths)
        .status()
        .expect("touch")
        .success();
    assert!(ok, "touch");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "big beads"]);
    std::thread::sleep(Duration::from_millis(2100));
    let first = listings(&repo);
    let cache = repo.read(CACHE);
    assert!(cache.len() > 1 << 20, "{} bytes", cache.len());
    assert_eq!(cached_ids(&repo).len(), MANY);
    assert_eq!(listings(&repo), first, "answered from the cache alike");
    // Entries near the start, the middle and the end are all taken from the cache.
    let mut edited = cache.clone();
    for n in [0, MANY / 2, MANY - 1] {
        edited = edited.replacen(&format!("Bead {n}. "), &format!("Cach {n}. "), 1);
    }
    repo.write(CACHE, &edited);
    let [list, _] = listings(&repo);
    for n in [0, MANY / 2, MANY - 1] {
        assert!(list.contains(&format!("Cach {n}. ")), "bead {n}");
    }
    let v: serde_json::Value = serde_json::from_str(&list).expect("json");
    assert_eq!(v.as_array().expect("array").len(), MANY);
}

#[test]
fn long_and_short_listings_show_priority_then_oldest_then_id() {
    // Many ties: three priorities, four creation times, ids in no order on disk.
    const MANY: usize = 90;
    let repo = Repo::initialised();
    let mut expected = Vec::new();
    for n in 0..MANY {
        let id = format!("vm-o{:02}", (n * 37) % MANY);
        let (priority, minute) = (n % 3, (n * 7) % 4);
        repo.write(
            &format!(".beads/issues/{id}.md"),
            &format!(
                "---\nid: {id}\ntitle: Order {n}\nstatus: open\npriority: {priority}\n\
                 created_at: 2026-01-01T10:{minute:02}:00Z\n---\n"
            ),
        );
        expected.push((priority, minute, id));
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "beads by hand"]);
    expected.sort();
    let expected: Vec<String> = expected.into_iter().map(|(.., id)| id).collect();
    let order = |args: &[&str]| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(&repo.ok(args)).expect("json");
        v.as_array()
            .expect("array")
            .iter()
            .map(|b| b["id"].as_str().expect("id").to_string())
            .collect()
    };
    for round in ["files", "caches"] {
        assert_eq!(order(&["list", "--json", "-n", "0"]), expected, "{round}");
        assert_eq!(order(&["ready", "--json", "-n", "0"]), expected, "{round}");
        assert_eq!(
            order(&["list", "--json", "-n", "5"]),
            expected[..5],
            "{round}"
        );
        std::thread::sleep(Duration::from_millis(2100));
    }
}
