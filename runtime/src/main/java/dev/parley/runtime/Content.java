package dev.parley.runtime;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonTypeName;

/** A content block of a tool result or prompt message (spec §8, {@code ContentBlock}). */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(Content.Text.class),
    @JsonSubTypes.Type(Content.Image.class),
    @JsonSubTypes.Type(Content.Audio.class),
    @JsonSubTypes.Type(Content.ResourceLink.class),
    @JsonSubTypes.Type(Content.EmbeddedResource.class)
})
@JsonInclude(JsonInclude.Include.NON_ABSENT)
public sealed interface Content {

    static Text text(String text) {
        return new Text(text);
    }

    @JsonTypeName("text")
    record Text(String text) implements Content {}

    /** Base64 image data. */
    @JsonTypeName("image")
    record Image(String data, String mimeType) implements Content {}

    /** Base64 audio data. */
    @JsonTypeName("audio")
    record Audio(String data, String mimeType) implements Content {}

    /** A resource's contents, inlined. */
    @JsonTypeName("resource")
    record EmbeddedResource(ResourceContents resource) implements Content {}

    @JsonTypeName("resource_link")
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    record ResourceLink(String uri, String name, String description, String mimeType) implements Content {}
}
