import { afterAll, beforeAll } from "vitest";

/**
 * jsdom does no layout: give the transcript scroller a viewport, a scroll
 * height (its content's height) and scrollTo, so the virtualiser has
 * something to fill (rows keep their estimated heights). Call once at the
 * top of a test file that renders a SessionScreen.
 */
export function installTranscriptLayout(viewport = 600): void {
  const saved = {
    clientHeight: Object.getOwnPropertyDescriptor(HTMLElement.prototype, "clientHeight"),
    scrollHeight: Object.getOwnPropertyDescriptor(Element.prototype, "scrollHeight"),
  };
  beforeAll(() => {
    Object.defineProperty(HTMLElement.prototype, "clientHeight", {
      configurable: true,
      get(this: HTMLElement) {
        return this.classList.contains("transcript") ? viewport : 0;
      },
    });
    Object.defineProperty(Element.prototype, "scrollHeight", {
      configurable: true,
      get(this: Element) {
        const inner = this.firstElementChild;
        return inner instanceof HTMLElement ? parseFloat(inner.style.height) || 0 : 0;
      },
    });
    Element.prototype.scrollTo = function scrollTo(this: Element, options?: ScrollToOptions | number) {
      const top = typeof options === "object" ? options.top : undefined;
      if (top === undefined) return;
      this.scrollTop = Math.max(0, Math.min(top, this.scrollHeight - this.clientHeight));
      this.dispatchEvent(new globalThis.Event("scroll"));
    } as Element["scrollTo"];
  });
  afterAll(() => {
    if (saved.clientHeight) Object.defineProperty(HTMLElement.prototype, "clientHeight", saved.clientHeight);
    if (saved.scrollHeight) Object.defineProperty(Element.prototype, "scrollHeight", saved.scrollHeight);
    delete (Element.prototype as Partial<Element>).scrollTo;
  });
}
