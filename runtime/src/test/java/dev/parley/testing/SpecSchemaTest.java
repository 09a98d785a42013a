package dev.parley.testing;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.parley.runtime.Content;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpException;
import dev.parley.runtime.ToolAnnotations;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.JsonRpc.Response;
import dev.parley.runtime.internal.wire.Mrtr.InputRequest;
import dev.parley.runtime.internal.wire.Mrtr.InputRequiredResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SpecSchemaTest {

    private static final Elicitation.Form WINDOW = Elicitation.form("When should the release go out?")
            .field("window", FormField.string("Release window", "date-time"))
            .field("notes", FormField.string("Notes").optional())
            .build();

    @Test
    void theDefinitionsTheServerRepliesWithAreInTheSchema() {
        assertTrue(
                SpecSchema.definitionNames()
                        .containsAll(List.of(
                                "CallToolResult",
                                "CallToolResultResponse",
                                "InputRequiredResult",
                                "InputRequest",
                                "InputResponse",
                                "ElicitRequest",
                                "ElicitResult",
                                "DiscoverResult",
                                "ListToolsResult",
                                "Tool",
                                "Result",
                                "JSONRPCResultResponse",
                                "JSONRPCErrorResponse",
                                "JSONRPCResponse",
                                "JSONRPCRequest",
                                "JSONRPCNotification",
                                "Error",
                                "ParseError",
                                "InvalidRequestError",
                                "MethodNotFoundError",
                                "InvalidParamsError",
                                "InternalError",
                                "HeaderMismatchError",
                                "MissingRequiredClientCapabilityError",
                                "UnsupportedProtocolVersionError")),
                SpecSchema.definitionNames()::toString);
    }

    @Test
    void aCallToolResultWithoutResultTypeIsRejected() {
        ObjectNode result = ToolResult.text("hi").toWire();
        result.remove("resultType");

        AssertionError error =
                assertThrows(AssertionError.class, () -> SpecSchema.assertValid("CallToolResult", result));

        assertTrue(error.getMessage().contains("resultType"), error.getMessage());
    }

    @Test
    void aCallToolResultWithAMalformedContentBlockIsRejected() {
        ObjectNode result = Json.object().put("resultType", "complete");
        result.putArray("content").addObject().put("type", "text");

        assertFalse(SpecSchema.problems("CallToolResult", result).isEmpty());
    }

    @Test
    void aCallToolResultThatSaysInputRequiredIsRejected() {
        ObjectNode result = ToolResult.text("hi").toWire().put("resultType", "input_required");

        assertThrows(AssertionError.class, () -> SpecSchema.assertValid("CallToolResult", result));
    }

    @Test
    void anInputRequiredResultWithNeitherRequestsNorStateIsRejected() {
        JsonNode result = Json.tree(new InputRequiredResult(null, null));

        AssertionError error =
                assertThrows(AssertionError.class, () -> SpecSchema.assertValid("InputRequiredResult", result));

        assertTrue(error.getMessage().contains("inputRequests or requestState"), error.getMessage());
    }

    @Test
    void anInputRequiredResultThatSaysCompleteIsRejected() {
        ObjectNode result = (ObjectNode) Json.tree(new InputRequiredResult(null, "opaque"));
        result.put("resultType", "complete");

        assertThrows(AssertionError.class, () -> SpecSchema.assertValid("InputRequiredResult", result));
    }

    @Test
    void aRequestStateOnlyInputRequiredResultIsValid() {
        SpecSchema.assertValid("InputRequiredResult", Json.tree(new InputRequiredResult(null, "opaque")));
    }

    @Test
    void anUnknownDefinitionNameIsAnIllegalArgument() {
        assertThrows(IllegalArgumentException.class, () -> SpecSchema.problems("NoSuchResult", Json.object()));
    }

    @Test
    void toolResultsOfEveryShapeAreValidCallToolResults() {
        SpecSchema.assertValid("CallToolResult", ToolResult.text("Scheduled.").toWire());
        SpecSchema.assertValid(
                "CallToolResult", ToolResult.error("No such service.").toWire());
        SpecSchema.assertValid(
                "CallToolResult",
                ToolResult.structured(Map.of("invoice", "INV-7", "total", 12.5)).toWire());
        SpecSchema.assertValid(
                "CallToolResult",
                new ToolResult(
                                List.of(
                                        Content.text("see attachments"),
                                        new Content.Image("iVBORw0KGgo=", "image/png"),
                                        new Content.Audio("UklGRg==", "audio/wav"),
                                        new Content.ResourceLink(
                                                "https://example.com/contract.pdf",
                                                "contract",
                                                null,
                                                "application/pdf")),
                                null,
                                false)
                        .toWire());
    }

    @Test
    void anInputRequiredResultBuiltFromQuestionsIsValidInAToolsCallResponse() {
        Map<String, InputRequest> requests = new LinkedHashMap<>();
        requests.put("window", WINDOW.toInputRequest());
        requests.put(
                "deposit",
                Elicitation.url("Pay the deposit", "https://127.0.0.1:8443/pay/abc")
                        .toInputRequest());
        requests.put(
                "currency",
                Elicitation.form("Which currency?")
                        .field("currency", FormField.choice("Currency", List.of("EUR", "USD")))
                        .field("amount", FormField.number("Amount").minimum(0))
                        .field("count", FormField.integer("Count").defaultValue(1))
                        .field(
                                "urgent",
                                FormField.bool("Urgent").defaultValue(false).description("Skip the queue"))
                        .build()
                        .toInputRequest());
        JsonNode response =
                Json.tree(Response.result(IntNode.valueOf(7), new InputRequiredResult(requests, "c2VhbGVk")));

        SpecSchema.assertValidResultResponse("InputRequiredResult", response);
        SpecSchema.assertValid("CallToolResultResponse", response);
        requests.values().forEach(request -> SpecSchema.assertValid("InputRequest", Json.tree(request)));
    }

    @Test
    void aCompleteToolsCallResponseIsValid() {
        JsonNode response = Json.tree(Response.result(
                TextNode.valueOf("req-1"), ToolResult.text("done").toWire()));

        SpecSchema.assertValidResultResponse("CallToolResult", response);
        SpecSchema.assertValid("CallToolResultResponse", response);
        SpecSchema.assertValidResponse(response);
    }

    @Test
    void aToolListEntryBuiltFromAToolDefinitionIsValid() {
        record Invoice(String client, int amount) {}
        ToolDefinition<Invoice> tool = ToolDefinition.tool("create_invoice", Invoice.class)
                .title("Create invoice")
                .description("Creates an invoice")
                .annotations(ToolAnnotations.readOnly())
                .handler((args, ctx) -> ToolResult.text("ok"));

        SpecSchema.assertValid("Tool", tool.infoJson());
    }

    @Test
    void errorResponsesAreCheckedAgainstTheirErrorDefinition() {
        JsonNode invalidParams = Json.tree(
                Response.error(IntNode.valueOf(3), JsonRpc.ErrorObject.of(McpException.invalidParams("bad"))));
        SpecSchema.assertValidErrorResponse(invalidParams);
        SpecSchema.assertValidErrorResponse("InvalidParamsError", invalidParams);
        SpecSchema.assertValidResponse(invalidParams);

        JsonNode parseError = Json.tree(
                Response.error(null, JsonRpc.ErrorObject.of(new McpException(ErrorCodes.PARSE_ERROR, "bad json"))));
        SpecSchema.assertValidErrorResponse("ParseError", parseError);

        assertThrows(
                AssertionError.class, () -> SpecSchema.assertValidErrorResponse("MethodNotFoundError", invalidParams));
        assertThrows(
                AssertionError.class,
                () -> SpecSchema.assertValidErrorResponse("MissingRequiredClientCapabilityError", invalidParams));
    }

    @Test
    void aMissingCapabilityErrorNeedsTheRequiredCapabilities() {
        ObjectNode data = Json.object();
        data.putObject("requiredCapabilities").putObject("elicitation").putObject("form");
        JsonNode good = Json.tree(Response.error(
                IntNode.valueOf(1),
                JsonRpc.ErrorObject.of(
                        new McpException(ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY, "Missing capability", data))));
        JsonNode bad = Json.tree(Response.error(
                IntNode.valueOf(1),
                JsonRpc.ErrorObject.of(
                        new McpException(ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY, "Missing capability"))));

        assertDoesNotThrow(() -> SpecSchema.assertValidErrorResponse("MissingRequiredClientCapabilityError", good));
        assertThrows(
                AssertionError.class,
                () -> SpecSchema.assertValidErrorResponse("MissingRequiredClientCapabilityError", bad));
    }

    @Test
    void aResponseWithoutJsonrpcVersionIsRejected() {
        ObjectNode response = (ObjectNode) Json.tree(
                Response.result(IntNode.valueOf(1), ToolResult.text("x").toWire()));
        response.remove("jsonrpc");

        assertThrows(AssertionError.class, () -> SpecSchema.assertValidResponse(response));
    }
}
