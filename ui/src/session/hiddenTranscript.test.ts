import { elementScroll, observeElementOffset, observeElementRect, Virtualizer } from "@tanstack/react-virtual";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { observeShownRect } from "./hiddenTranscript";

// jsdom has no layout and no ResizeObserver: the scroller's size is set by
// hand and the observer's callbacks are fired by the test, as a browser
// would fire them when the session is hidden under an overlay and shown.
const observers: Array<() => void> = [];
class FakeResizeObserver {
  constructor(private readonly callback: () => void) {}
  observe() {
    observers.push(this.callback);
  }
  unobserve() {}
  disconnect() {}
}

function setSize(element: HTMLElement, width: number, height: number) {
  Object.defineProperty(element, "clientWidth", { configurable: true, value: width });
  Object.defineProperty(element, "clientHeight", { configurable: true, value: height });
}

function resized() {
  observers.forEach((callback) => callback());
}

function virtualizer(element: HTMLElement, observe: typeof observeElementRect) {
  const v = new Virtualizer<HTMLElement, HTMLElement>({
    count: 100,
    getScrollElement: () => element,
    estimateSize: () => 50,
    scrollToFn: elementScroll,
    observeElementRect: observe,
    observeElementOffset,
    onChange: () => {},
  });
  v._didMount();
  v._willUpdate();
  return v;
}

describe("the transcript's virtualizer under an overlay", () => {
  let element: HTMLElement;
  const saved = window.ResizeObserver;
  beforeEach(() => {
    observers.length = 0;
    window.ResizeObserver = FakeResizeObserver as unknown as typeof ResizeObserver;
    element = document.createElement("div");
    document.body.appendChild(element);
    setSize(element, 800, 400);
  });
  afterEach(() => {
    window.ResizeObserver = saved;
    element.remove();
  });

  it("renders no rows once hidden with the library's own observer (the bug)", () => {
    const v = virtualizer(element, observeElementRect);
    expect(v.getVirtualItems().length).toBeGreaterThan(0);
    setSize(element, 0, 0);
    resized();
    expect(v.getVirtualItems()).toHaveLength(0);
  });

  it("keeps its rows while hidden and when shown again", () => {
    const v = virtualizer(element, observeShownRect);
    const shown = v.getVirtualItems().map((item) => item.key);
    expect(shown.length).toBeGreaterThan(0);
    setSize(element, 0, 0);
    resized();
    expect(v.getVirtualItems().map((item) => item.key)).toEqual(shown);
    setSize(element, 800, 400);
    resized();
    expect(v.getVirtualItems().map((item) => item.key)).toEqual(shown);
  });

  it("puts back the scroll position display: none dropped", () => {
    const v = virtualizer(element, observeShownRect);
    element.scrollTop = 1200;
    element.dispatchEvent(new Event("scroll"));
    expect(v.scrollOffset).toBe(1200);
    setSize(element, 0, 0);
    resized();
    element.scrollTop = 0; // what a browser does to a box that was not displayed
    setSize(element, 800, 400);
    resized();
    expect(element.scrollTop).toBe(1200);
    expect(v.getVirtualItems()[0]?.index ?? 0).toBeGreaterThan(0);
  });
});
