import { THEME_CHOICES, type ThemeChoice as Choice, useTheme } from "../state/theme";

const LABELS: Record<Choice, string> = { system: "System", light: "Light", dark: "Dark" };

/** Settings → Appearance: System (follow the OS), Light or Dark; remembered (state/theme.ts). */
export function ThemeChoice() {
  const [state, choose] = useTheme();
  return (
    <section className="appearance">
      <h3>Appearance</h3>
      <fieldset className="theme-choice" data-testid="theme-choice">
        <legend>Theme</legend>
        {THEME_CHOICES.map((choice) => (
          <label key={choice}>
            <input
              type="radio"
              name="theme"
              value={choice}
              data-testid={`theme-${choice}`}
              checked={state.choice === choice}
              onChange={() => choose(choice)}
            />{" "}
            {LABELS[choice]}
            {choice === "system" && state.system !== null && (
              <span className="muted" data-testid="theme-system-now" data-theme-now={state.system}>
                {" "}
                (now {LABELS[state.system].toLowerCase()})
              </span>
            )}
          </label>
        ))}
      </fieldset>
      {state.error !== null && (
        <p className="error" data-testid="theme-error" role="alert">
          {state.error}
        </p>
      )}
    </section>
  );
}
