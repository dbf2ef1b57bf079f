/** The page every HTML template is laid out on: A4 with 20 mm margins on each side. */
export const PAGE_MARGIN_MM = 20;
export const PAGE_WIDTH_MM = 210;

const CSS_PX_PER_MM = 96 / 25.4;

/** The text width in CSS pixels (96 dpi), rounded down so an image at this width never overflows. */
export const TEXT_WIDTH_PX = Math.floor((PAGE_WIDTH_MM - 2 * PAGE_MARGIN_MM) * CSS_PX_PER_MM);
