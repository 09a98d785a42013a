package dev.parley.http.internal;

import dev.parley.runtime.Principal;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.pekko.http.javadsl.model.AttributeKeys;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.RemoteAddress;

/**
 * Who a request's durable state counts against in {@code parley.quotas}: the principal, unless
 * every caller is the anonymous principal ({@code parley.auth} off), in which case the client's
 * address: the connection's own, or with {@code parley.http.client-address.forwarded-for-hops}
 * set, the {@code X-Forwarded-For} entry that many from the right (the one the outermost trusted
 * proxy appended; entries further left are the client's own claims). An IPv6 client counts as
 * its /64 network, which one host usually holds whole.
 */
final class QuotaPrincipals {
    private static final Pattern IPV6_LITERAL = Pattern.compile("\\[?[0-9A-Fa-f:.]+]?");

    private final int forwardedForHops;

    QuotaPrincipals(int forwardedForHops) {
        this.forwardedForHops = forwardedForHops;
    }

    String of(HttpRequest request, String principal) {
        if (!principal.equals(Principal.ANONYMOUS.id())) {
            return principal;
        }
        return "address:" + clientAddress(request).map(QuotaPrincipals::network).orElse("unknown");
    }

    private Optional<String> clientAddress(HttpRequest request) {
        if (forwardedForHops > 0) {
            List<String> forwarded = java.util.stream.StreamSupport.stream(
                            request.getHeaders().spliterator(), false)
                    .filter(header -> header.is("x-forwarded-for"))
                    .map(HttpHeader::value)
                    .flatMap(value -> Arrays.stream(value.split(",")))
                    .map(String::trim)
                    .filter(entry -> !entry.isEmpty())
                    .toList();
            if (forwarded.size() >= forwardedForHops) {
                return Optional.of(forwarded.get(forwarded.size() - forwardedForHops));
            }
        }
        return request.getAttribute(AttributeKeys.remoteAddress)
                .flatMap(RemoteAddress::getAddress)
                .map(InetAddress::getHostAddress);
    }

    /** An IPv4 address as it is; an IPv6 address as its /64 network. */
    private static String network(String address) {
        // Only a literal is parsed: a name would make InetAddress ask DNS.
        if (!address.contains(":") || !IPV6_LITERAL.matcher(address).matches()) {
            return address;
        }
        try {
            byte[] bytes = InetAddress.getByName(address.replace("[", "").replace("]", ""))
                    .getAddress();
            if (bytes.length == 16) {
                Arrays.fill(bytes, 8, 16, (byte) 0);
                return Inet6Address.getByAddress(bytes).getHostAddress() + "/64";
            }
        } catch (java.net.UnknownHostException notAnAddress) {
            // a forwarded entry that is no address (e.g. "unknown"): counted under its text
        }
        return address;
    }
}
