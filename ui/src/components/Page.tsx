// The one page container every screen renders in (issue 17 item 10): the
// same width, left edge and header spacing on Home, Settings, Rules, MCP,
// Sessions, the reader and the project page. Its look is styles.css `.page`
// and `.page-header`; screens add no width, padding or margin of their own.

import type { ReactNode } from "react";

/** Which screen a page is (its `data-page`, for the e2e layout check). */
export type PageName = "home" | "settings" | "rules" | "mcp" | "sessions" | "reader" | "project" | "onboarding";

interface PageProps {
  name: PageName;
  /** The screen's own class (its stylesheet's scope), beside `page`. */
  className?: string | undefined;
  testId?: string | undefined;
  /** The page gives its one child the window's height (session screens). */
  fill?: boolean | undefined;
  children: ReactNode;
}

/** A screen's root: `<main class="page">`. */
export function Page({ name, className, testId, fill = false, children }: PageProps) {
  const classes = ["page", `page-${name}`, fill ? "page-fill" : null, className ?? null].filter((c) => c !== null).join(" ");
  return (
    <main className={classes} data-page={name} data-testid={testId}>
      {children}
    </main>
  );
}

interface HeaderProps {
  title: ReactNode;
  titleTestId?: string | undefined;
  /** A Back button before the title. */
  back?: { label: string; testId: string; onClick(): void } | undefined;
  /** Shown after the title (a project's path, a badge). */
  aside?: ReactNode;
  /** The screen's controls, at the row's end. */
  children?: ReactNode;
}

/** A screen's title row: Back, the title, what goes with it, then its controls. */
export function PageHeader({ title, titleTestId, back, aside, children }: HeaderProps) {
  return (
    <header className="page-header">
      {back && (
        <button type="button" onClick={back.onClick} data-testid={back.testId}>
          ← {back.label}
        </button>
      )}
      <h2 data-testid={titleTestId}>{title}</h2>
      {aside}
      {children !== undefined && <div className="page-header-end">{children}</div>}
    </header>
  );
}
