package dev.parley.actors.internal.alone;

import java.io.NotSerializableException;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.serialization.SerializerWithStringManifest;

/**
 * Stands in, on a node alone, for a serializer whose format only carries messages between nodes
 * (remoting, cluster, sharding, Jackson CBOR): Pekko makes every configured serializer as its actor
 * system starts, and those cost about 230 lambda classes and a CBOR mapper at every start. Nothing
 * on a node alone uses them; a use is a bug, and says so.
 */
public final class NoWireSerializer extends SerializerWithStringManifest {
    private final String bindingName;

    public NoWireSerializer(ExtendedActorSystem system, String bindingName) {
        this.bindingName = bindingName;
    }

    /** Unique per binding name (Pekko checks), and outside Pekko's and Parley's own identifiers. */
    @Override
    public int identifier() {
        return 7_300_000 + (bindingName.hashCode() & 0xFFFF);
    }

    @Override
    public String manifest(Object message) {
        return "";
    }

    @Override
    public byte[] toBinary(Object message) {
        throw new IllegalStateException(unused());
    }

    @Override
    public Object fromBinary(byte[] bytes, String manifest) throws NotSerializableException {
        throw new NotSerializableException(unused());
    }

    private String unused() {
        return "serializer " + bindingName + " carries messages between nodes; this node runs alone";
    }
}
