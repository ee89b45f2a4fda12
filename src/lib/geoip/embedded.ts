// The tables built by scripts/build-geoip.ts (npm install runs it), embedded by `bun build --compile`.
// A file import, not bytes: the file is read when loadGeoIp() runs, and this module is imported only
// then, so a checkout where the build has not run yet fails there with a message, not at start-up.
import path from '../../../build/geoip/geoip.bin' with { type: 'file' }

export default path
