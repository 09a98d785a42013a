package dev.parley.runtime;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.internal.wire.Mrtr.InputRequest;

/**
 * Anything a handler may ask the client for in an {@code input_required} round: an
 * elicitation, or (deprecated since 2026-07-28) a sampling or roots request.
 */
public sealed interface InputQuestion permits Elicitation, SamplingRequest, RootsRequest {

    /** The wire input request this question becomes. */
    InputRequest toInputRequest();

    /** Whether the request's client declared the capability this question needs. */
    boolean supportedBy(ClientCapabilities capabilities);

    /** The capability object to name in a -32021 error when it is missing. */
    ObjectNode requiredCapability();
}
