/** The Gatehouse mark (same drawing as icons/icon.png): an arch with bars. Colours: styles.css (.logo-*). */
export function Logo() {
  return (
    <svg className="logo" viewBox="0 0 32 32" width="22" height="22" aria-hidden="true">
      <rect className="logo-ground" width="32" height="32" rx="6" />
      <path className="logo-arch" d="M9 26V13a7 7 0 0 1 14 0v13" fill="none" strokeWidth="3.2" />
      <path className="logo-bars" d="M14.4 14v12M17.6 14v12" strokeWidth="1.3" />
    </svg>
  );
}
