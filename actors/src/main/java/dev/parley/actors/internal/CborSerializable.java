package dev.parley.actors.internal;

/** Marker for messages that cross nodes: commands and replies (bound to jackson-cbor). */
public interface CborSerializable {}
