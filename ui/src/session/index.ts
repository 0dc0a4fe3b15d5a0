// The live session UI's public pieces (SessionView renders SessionScreen).
export { SessionScreen, nextMode, MODE_CYCLE, type SessionScreenProps } from "./SessionScreen";
export { PermissionModal, DESTINATION_LABELS } from "./PermissionModal";
export { BatchTimeline, timelineGeometry, type TimelineGeometry } from "./BatchTimeline";
export { Transcript } from "./Transcript";
export { ToolCallView, ToolGroupView } from "./ToolCallView";
export { DiffView } from "./renderers/DiffView";
export { BashView } from "./renderers/BashView";
export { TaskPanel } from "./renderers/TaskPanel";
export { Markdown } from "./Markdown";
export { ModelStore } from "./store";
export {
  applyEvent,
  emptyModel,
  foldEvents,
  groupSummary,
  pendingRequests,
  type SessionModel,
  type ToolCall,
  type ToolStatus,
  type TranscriptItem,
} from "./model";
