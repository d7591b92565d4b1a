/** The version of this `@troupe/kernel` package (kept equal to package.json by a test). */
export const KERNEL_VERSION = '0.1.0';
