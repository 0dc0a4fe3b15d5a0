import { measureElement, observeElementRect, type Rect, type Virtualizer } from "@tanstack/react-virtual";

/**
 * The transcript's virtualizer, made to survive being hidden.
 *
 * While the rule editor or the MCP panel is over a live session, the
 * session stays mounted under `hidden` (display: none). A hidden scroller
 * measures 0×0, and a virtualizer whose viewport is 0 tall renders no rows
 * at all: coming back showed an empty transcript until the next resize
 * observation arrived (the e2e `rules.rs` caught it). A box with no size is
 * therefore "not shown", never "shown with no room": its rect and its rows'
 * sizes are kept as they were, and when it is shown again the scroll
 * position the virtualizer knows is put back (display: none drops it).
 */
export function observeShownRect<S extends Element, I extends Element>(
  instance: Virtualizer<S, I>,
  cb: (rect: Rect) => void,
): (() => void) | undefined {
  let hidden = false;
  return observeElementRect(instance, (rect) => {
    if (rect.width === 0 && rect.height === 0) {
      hidden = true;
      return;
    }
    if (hidden) {
      hidden = false;
      const element = instance.scrollElement;
      const offset = instance.scrollOffset;
      if (element !== null && offset !== null && element.scrollTop !== offset) element.scrollTop = offset;
    }
    cb(rect);
  });
}

/** A row's size, where a hidden row (0 tall) keeps the size it was measured at. */
export function measureShownElement<S extends Element, I extends Element>(
  element: I,
  entry: ResizeObserverEntry | undefined,
  instance: Virtualizer<S, I>,
): number {
  const size = measureElement(element, entry, instance);
  if (size > 0) return size;
  const key = instance.options.getItemKey(instance.indexFromElement(element));
  return instance.itemSizeCache.get(key) ?? size;
}
