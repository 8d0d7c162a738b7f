// The translation unit that owns the precompiled header (pch.h); every library,
// chapter, tool and test reuses it.
