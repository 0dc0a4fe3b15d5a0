import { useState } from "react";

import { backend } from "../client";

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Settings → Data: where the database and settings are (read-only), and a way to open the folder. */
export function DataFolder({ dataDir }: { dataDir: string }) {
  const [error, setError] = useState<string | null>(null);
  return (
    <section className="data-folder" data-testid="data-folder">
      <h3>Data</h3>
      <p>
        Sessions, projects and these settings are kept in <code data-testid="data-dir">{dataDir}</code> (set{" "}
        <code>GATEHOUSE_DATA_DIR</code> to use another folder).
      </p>
      <button
        type="button"
        data-testid="open-data-dir"
        onClick={() => {
          setError(null);
          backend.openDataDir().catch((err: unknown) => setError(message(err)));
        }}
      >
        Open folder
      </button>
      {error !== null && (
        <p className="error" role="alert" data-testid="open-data-dir-error">
          {error}
        </p>
      )}
    </section>
  );
}
