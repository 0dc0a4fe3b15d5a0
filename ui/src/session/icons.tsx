import {
  Bot,
  FilePenLine,
  FileText,
  FolderSearch,
  Globe,
  ListTodo,
  Plug,
  Search,
  Terminal,
  Wrench,
  type LucideIcon,
} from "lucide-react";

import type { ToolKind } from "./model";

const ICONS: Record<ToolKind, LucideIcon> = {
  read: FileText,
  search: Search,
  list: FolderSearch,
  edit: FilePenLine,
  bash: Terminal,
  mcp: Plug,
  task: ListTodo,
  agent: Bot,
  web: Globe,
  other: Wrench,
};

/** The icon of a tool family. */
export function ToolIcon({ kind, size = 16 }: { kind: ToolKind; size?: number }) {
  const Icon = ICONS[kind];
  return <Icon size={size} aria-hidden="true" className={`tool-icon tool-icon-${kind}`} />;
}
