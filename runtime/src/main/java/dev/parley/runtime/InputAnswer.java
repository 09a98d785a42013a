package dev.parley.runtime;

/** The client's answer to an {@link InputQuestion}. */
public sealed interface InputAnswer permits ElicitAnswer, SamplingAnswer, RootsAnswer {}
