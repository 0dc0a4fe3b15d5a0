interface Props {
  message: string;
  onDismiss(): void;
}

/** A backend error, shown as is: it says what went wrong and where. */
export function ErrorBanner({ message, onDismiss }: Props) {
  return (
    <div className="error-banner" role="alert" data-testid="error-banner">
      <span>{message}</span>
      <button type="button" onClick={onDismiss} aria-label="Dismiss">
        ×
      </button>
    </div>
  );
}
