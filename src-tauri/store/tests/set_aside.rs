//! A damaged or too-new database set aside (renamed with a timestamp, never
//! deleted) so the app can start with a fresh one — against real SQLite
//! files in temporary folders.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use gatehouse_store::{DATABASE_FILE, Store, StoreError, set_aside_database};

/// A real database with a project in it, then damaged the way a crash or a
/// bad disk does: its header and first pages overwritten.
fn corrupt_database(dir: &std::path::Path) -> Vec<u8> {
    let project = dir.join("proj");
    std::fs::create_dir_all(&project).unwrap();
    {
        let store = Store::open(dir).unwrap();
        store.add_project(&project).unwrap();
    }
    let path = dir.join(DATABASE_FILE);
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 4096, "the database has more than one page");
    for b in bytes.iter_mut().take(4096) {
        *b = 0x5a;
    }
    std::fs::write(&path, &bytes).unwrap();
    bytes
}

#[test]
fn a_corrupt_database_is_renamed_with_a_timestamp_and_a_fresh_one_opens() {
    let data = tempfile::tempdir().unwrap();
    let damaged = corrupt_database(data.path());
    let err = Store::open(data.path()).unwrap_err();
    assert!(
        matches!(err, StoreError::Sqlite { .. }),
        "the damaged file is refused: {err}"
    );

    let kept = set_aside_database(data.path()).unwrap();
    assert!(!kept.is_empty());
    let main = &kept[0];
    let name = main.file_name().unwrap().to_string_lossy().into_owned();
    let stamp = name
        .strip_prefix(&format!("{DATABASE_FILE}.damaged-"))
        .unwrap_or_else(|| panic!("named with a timestamp: {name}"));
    assert!(stamp.parse::<u64>().is_ok(), "{name}");
    assert_eq!(
        main.parent().unwrap(),
        data.path(),
        "kept in the data folder"
    );
    assert_eq!(
        std::fs::read(main).unwrap(),
        damaged,
        "the damaged bytes are kept as they were"
    );
    for other in &kept[1..] {
        let other = other.file_name().unwrap().to_string_lossy().into_owned();
        assert!(other.ends_with(&format!(".damaged-{stamp}")), "{other}");
    }

    let fresh = Store::open(data.path()).unwrap();
    assert!(
        fresh.list_projects().unwrap().is_empty(),
        "a fresh database"
    );
    assert!(
        main.exists(),
        "opening the fresh one leaves the old file alone"
    );
}

#[test]
fn a_database_from_a_newer_gatehouse_is_set_aside_whole() {
    let data = tempfile::tempdir().unwrap();
    {
        Store::open(data.path()).unwrap();
    }
    let path = data.path().join(DATABASE_FILE);
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", 9_999).unwrap();
    }
    assert!(matches!(
        Store::open(data.path()).unwrap_err(),
        StoreError::TooNew { .. }
    ));
    let kept = set_aside_database(data.path()).unwrap();
    let conn = rusqlite::Connection::open(&kept[0]).unwrap();
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(
        version, 9_999,
        "the newer database is intact under its new name"
    );
    Store::open(data.path()).unwrap();
}

#[test]
fn without_a_database_nothing_is_set_aside() {
    let data = tempfile::tempdir().unwrap();
    assert!(set_aside_database(data.path()).unwrap().is_empty());
}

#[test]
fn a_removed_project_is_forgotten_and_its_folder_untouched() {
    let data = tempfile::tempdir().unwrap();
    let folder = data.path().join("p");
    std::fs::create_dir_all(&folder).unwrap();
    let store = Store::open(data.path()).unwrap();
    let project = store.add_project(&folder).unwrap();
    assert!(store.remove_project(project.id).unwrap());
    assert!(!store.remove_project(project.id).unwrap());
    assert!(store.list_projects().unwrap().is_empty());
    assert!(folder.is_dir());
}
