//! Approved project MCP servers, in a real SQLite file.

use gatehouse_store::Store;

#[test]
fn approvals_persist_and_are_tied_to_the_configuration_fingerprint() {
    let data = tempfile::tempdir().unwrap();
    {
        let store = Store::open(data.path()).unwrap();
        assert!(store.mcp_approvals("/p").unwrap().is_empty());
        store.approve_mcp_server("/p", "everything", "fp1").unwrap();
        store.approve_mcp_server("/p", "files", "fp9").unwrap();
        store
            .approve_mcp_server("/other", "everything", "fp1")
            .unwrap();
    }
    let store = Store::open(data.path()).unwrap();
    assert!(
        store
            .is_mcp_server_approved("/p", "everything", "fp1")
            .unwrap()
    );
    // A changed configuration is not approved.
    assert!(
        !store
            .is_mcp_server_approved("/p", "everything", "fp2")
            .unwrap()
    );
    assert!(
        !store
            .is_mcp_server_approved("/q", "everything", "fp1")
            .unwrap()
    );
    let names: Vec<_> = store
        .mcp_approvals("/p")
        .unwrap()
        .into_iter()
        .map(|a| a.server)
        .collect();
    assert_eq!(names, ["everything", "files"]);
    // Re-approving replaces the fingerprint; revoking removes it.
    store.approve_mcp_server("/p", "everything", "fp2").unwrap();
    assert!(
        store
            .is_mcp_server_approved("/p", "everything", "fp2")
            .unwrap()
    );
    assert!(
        !store
            .is_mcp_server_approved("/p", "everything", "fp1")
            .unwrap()
    );
    store.revoke_mcp_server("/p", "everything").unwrap();
    assert!(
        !store
            .is_mcp_server_approved("/p", "everything", "fp2")
            .unwrap()
    );
    store.revoke_mcp_server("/p", "everything").unwrap();
}
