// Builds the embedded database's prepared image (src/db/pglite-image.ts) if it is missing, so the
// first `herd serve` on a fresh DATA_DIR starts as fast as every later one. `npm ci` runs it.
import { prepareEmbeddedImage } from '../src/db/database.ts';

const image = await prepareEmbeddedImage();
process.stdout.write(
  image
    ? `embedded database image: ${image}\n`
    : 'embedded database image: not written (the cache directory is not writable); a fresh DATA_DIR runs initdb\n',
);
