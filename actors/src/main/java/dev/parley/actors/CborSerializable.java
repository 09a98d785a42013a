package dev.parley.actors;

/** Marker for messages that cross nodes: commands and replies (bound to jackson-cbor). */
public interface CborSerializable {}
