//! The store against real SQLite files in temporary folders.

use gatehouse_store::{DATABASE_FILE, SCHEMA_VERSION, Store, StoreError};

#[test]
fn projects_survive_reopening_and_list_most_recent_first() {
    let data = tempfile::tempdir().unwrap();
    let folders = tempfile::tempdir().unwrap();
    let a = folders.path().join("alpha");
    let b = folders.path().join("beta");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    {
        let store = Store::open(data.path()).unwrap();
        store.add_project(&a).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(5));
        store.add_project(&b).unwrap();
    }
    let store = Store::open(data.path()).unwrap();
    let names: Vec<_> = store
        .list_projects()
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(names, ["beta", "alpha"]);
}

#[test]
fn adding_the_same_folder_twice_keeps_one_project_by_canonical_path() {
    let data = tempfile::tempdir().unwrap();
    let folders = tempfile::tempdir().unwrap();
    let real = folders.path().join("real");
    std::fs::create_dir_all(&real).unwrap();
    let link = folders.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let store = Store::open(data.path()).unwrap();
    let first = store.add_project(&real).unwrap();
    let again = store.add_project(&link).unwrap();
    assert_eq!(first.id, again.id);
    assert_eq!(again.path, real.canonicalize().unwrap().to_str().unwrap());
    assert_eq!(store.list_projects().unwrap().len(), 1);
}

#[test]
fn a_missing_folder_or_a_file_is_refused_with_its_path() {
    let data = tempfile::tempdir().unwrap();
    let store = Store::open(data.path()).unwrap();
    let missing = data.path().join("nope");
    let err = store.add_project(&missing).unwrap_err().to_string();
    assert!(err.contains("nope"), "{err}");
    let file = data.path().join("file.txt");
    std::fs::write(&file, "x").unwrap();
    let err = store.add_project(&file).unwrap_err().to_string();
    assert!(err.contains("not a folder"), "{err}");
    assert!(store.list_projects().unwrap().is_empty());
}

#[test]
fn opening_an_unknown_project_says_so() {
    let data = tempfile::tempdir().unwrap();
    let store = Store::open(data.path()).unwrap();
    let err = store.open_project(42).unwrap_err().to_string();
    assert_eq!(err, "no project with id 42");
}

#[test]
fn a_damaged_database_is_refused_and_left_untouched() {
    let data = tempfile::tempdir().unwrap();
    let path = data.path().join(DATABASE_FILE);
    let garbage = b"this is not a database, it is a shopping list\n".repeat(200);
    std::fs::write(&path, &garbage).unwrap();
    let err = Store::open(data.path()).unwrap_err();
    assert!(matches!(err, StoreError::Sqlite { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains(DATABASE_FILE), "{message}");
    assert!(message.contains("not a database"), "{message}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        garbage,
        "the file must not be modified"
    );
}

#[test]
fn a_database_from_a_newer_gatehouse_is_refused_and_left_untouched() {
    let data = tempfile::tempdir().unwrap();
    {
        let store = Store::open(data.path()).unwrap();
        drop(store);
        let conn = rusqlite::Connection::open(data.path().join(DATABASE_FILE)).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 7)
            .unwrap();
    }
    let err = Store::open(data.path()).unwrap_err();
    match &err {
        StoreError::TooNew {
            found, supported, ..
        } => {
            assert_eq!(*found, SCHEMA_VERSION + 7);
            assert_eq!(*supported, SCHEMA_VERSION);
        }
        other => panic!("expected TooNew, got {other:?}"),
    }
    assert!(err.to_string().contains("left untouched"));
    let conn = rusqlite::Connection::open(data.path().join(DATABASE_FILE)).unwrap();
    let v: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, SCHEMA_VERSION + 7);
}

#[test]
fn the_database_uses_wal() {
    let data = tempfile::tempdir().unwrap();
    let store = Store::open(data.path()).unwrap();
    drop(store);
    let conn = rusqlite::Connection::open(data.path().join(DATABASE_FILE)).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn opening_an_existing_database_commits_nothing() {
    let data = tempfile::tempdir().unwrap();
    let folder = data.path().join("p");
    std::fs::create_dir_all(&folder).unwrap();
    Store::open(data.path())
        .unwrap()
        .add_project(&folder)
        .unwrap();
    // A connection that sees every other connection's commit.
    let watcher = rusqlite::Connection::open(data.path().join(DATABASE_FILE)).unwrap();
    let version = || -> i64 {
        watcher
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .unwrap()
    };
    let before = version();
    for _ in 0..3 {
        let store = Store::open(data.path()).unwrap();
        assert_eq!(store.list_projects().unwrap().len(), 1);
    }
    // Opening used to rewrite the header page (`auto_vacuum`), under the
    // default `synchronous=FULL`: a commit and two fsyncs per open.
    assert_eq!(version(), before, "an open committed something");
    Store::open(data.path())
        .unwrap()
        .add_project(&folder.join(".."))
        .unwrap();
    assert_ne!(version(), before, "the watcher does see commits");
}

/// Processes that open a data directory for the first time at once (two
/// hook calls of parallel tool calls, the app and a hook) all get a store:
/// one creates the schema, the others find it made ("table projects
/// already exists" before migrations re-read the version under the write
/// lock).
#[test]
fn stores_opened_at_once_on_a_new_directory_all_open() {
    for _ in 0..20 {
        let dir = tempfile::tempdir().unwrap();
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(4));
        let opened: Vec<_> = (0..4)
            .map(|_| {
                let barrier = std::sync::Arc::clone(&barrier);
                let dir = dir.path().to_path_buf();
                std::thread::spawn(move || {
                    barrier.wait();
                    Store::open(&dir).map(|_| ())
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().unwrap())
            .collect();
        for result in opened {
            result.unwrap();
        }
    }
}
