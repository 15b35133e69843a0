/** The largest image a result carries. */
export const MAX_IMAGE_BYTES = 150 * 1024;

const QUALITIES = [80, 60, 45, 30, 20];

/** A JPEG of at most MAX_IMAGE_BYTES, at the best quality that fits. */
export async function jpegScreenshot(take: (quality: number) => Promise<Buffer>): Promise<Buffer> {
  let image: Buffer | undefined;
  for (const quality of QUALITIES) {
    image = await take(quality);
    if (image.length <= MAX_IMAGE_BYTES) return image;
  }
  throw new Error(
    `the screenshot stays above ${MAX_IMAGE_BYTES / 1024} KB even at JPEG quality ${QUALITIES.at(-1)}`,
  );
}
