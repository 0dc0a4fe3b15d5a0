import { memo } from "react";

import { prettyJson } from "../format";
import { resultText, type ToolCall } from "../model";
import { Images } from "./ReadView";

/** Any other tool: its JSON input and its result text. */
export const GenericView = memo(function GenericView({ call }: { call: ToolCall }) {
  const text = call.result && !call.result.isError ? resultText(call) : "";
  return (
    <div className="generic">
      <details>
        <summary>Input</summary>
        <pre className="json">{prettyJson(call.input)}</pre>
      </details>
      {text && <pre className="result-text">{text}</pre>}
      {call.result && <Images content={call.result.content} />}
    </div>
  );
});
