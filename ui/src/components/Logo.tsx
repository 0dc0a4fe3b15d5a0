/** The Gatehouse mark (same drawing as icons/icon.png): an arch with bars. */
export function Logo() {
  return (
    <svg className="logo" viewBox="0 0 32 32" width="22" height="22" aria-hidden="true">
      <rect width="32" height="32" rx="6" fill="#252d54" />
      <path d="M9 26V13a7 7 0 0 1 14 0v13" fill="none" stroke="#f5c542" strokeWidth="3.2" />
      <path d="M14.4 14v12M17.6 14v12" stroke="#c8cee6" strokeWidth="1.3" />
    </svg>
  );
}
