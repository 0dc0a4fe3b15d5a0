import { formatBytes } from "../format";
import type { ToolBlockInfo } from "../model";

/** The session header's tool count: loaded / deferred tools and the bytes of the tool block. */
export function ToolBlockBadge({ block }: { block: ToolBlockInfo | null }) {
  if (!block) return null;
  const title = block.toolSearch
    ? `${block.loaded} tools loaded, ${block.deferred} deferred (loaded with ToolSearch); the tool block is ${block.bytes} bytes`
    : `${block.loaded} tools; the tool block is ${block.bytes} bytes`;
  return (
    <span className="muted small" data-testid="tool-block" title={title}>
      {block.loaded} tools{block.toolSearch ? ` · ${block.deferred} deferred` : ""} · {formatBytes(block.bytes)}
    </span>
  );
}
