/**
 * Not API: may change without notice. Bounds-checked reads shared by the codec's decoders,
 * public only because they live in several packages.
 */
package io.pgrepl.codec.internal;
