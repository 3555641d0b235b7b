// Package atomicfile writes files so that readers see either the old
// content or the complete new content, never a partial write.
package atomicfile
