package io.pgrepl.client.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.security.auth.x500.X500Principal;

/**
 * sslmode=verify-full host name check, following libpq and RFC 6125: an IP literal host is
 * matched against iPAddress SANs, a DNS host against dNSName SANs (a wildcard only as the whole
 * left-most label, matching exactly one non-empty label). The subject CN is consulted only when
 * the certificate has no SAN of either kind.
 */
public final class HostnameVerifier {
    private static final int SAN_DNS = 2;
    private static final int SAN_IP = 7;

    private HostnameVerifier() {}

    public static boolean matches(String host, X509Certificate cert) {
        boolean ipHost = isIpLiteral(host);
        List<String> dns = new ArrayList<>();
        List<String> ips = new ArrayList<>();
        try {
            Collection<List<?>> sans = cert.getSubjectAlternativeNames();
            if (sans != null) {
                for (List<?> san : sans) {
                    int kind = (Integer) san.get(0);
                    if (kind == SAN_DNS) dns.add((String) san.get(1));
                    if (kind == SAN_IP) ips.add((String) san.get(1));
                }
            }
        } catch (CertificateParsingException e) {
            return false;
        }
        if (!dns.isEmpty() || !ips.isEmpty()) {
            if (ipHost) {
                for (String ip : ips) if (sameAddress(host, ip)) return true;
                return false;
            }
            for (String name : dns) if (dnsMatches(host, name)) return true;
            return false;
        }
        String cn = commonName(cert.getSubjectX500Principal());
        if (cn == null) return false;
        return ipHost ? sameAddress(host, cn) : dnsMatches(host, cn);
    }

    static boolean dnsMatches(String host, String pattern) {
        String h = stripDot(host.toLowerCase(Locale.ROOT));
        String p = stripDot(pattern.toLowerCase(Locale.ROOT));
        if (h.isEmpty() || p.isEmpty()) return false;
        if (p.startsWith("*.")) {
            String suffix = p.substring(1); // ".example.com"
            if (suffix.indexOf('*') >= 0 || suffix.length() < 2) return false;
            int dot = h.indexOf('.');
            return dot > 0 && h.substring(dot).equals(suffix);
        }
        return p.indexOf('*') < 0 && h.equals(p);
    }

    private static String stripDot(String s) {
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    public static boolean isIpLiteral(String host) {
        if (host.indexOf(':') >= 0) return true; // IPv6
        return host.matches("\\d{1,3}(\\.\\d{1,3}){3}");
    }

    private static boolean sameAddress(String a, String b) {
        if (!isIpLiteral(a) || !isIpLiteral(b)) return false;
        try {
            // Literals only: getByName does not resolve them.
            return InetAddress.getByName(strip(a)).equals(InetAddress.getByName(strip(b)));
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static String strip(String ip) {
        return ip.startsWith("[") && ip.endsWith("]") ? ip.substring(1, ip.length() - 1) : ip;
    }

    private static String commonName(X500Principal principal) {
        try {
            String cn = null;
            for (Rdn rdn : new LdapName(principal.getName(X500Principal.RFC2253)).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    if (cn != null) return null; // several CNs: ambiguous, refuse as libpq does
                    cn = rdn.getValue().toString();
                }
            }
            return cn;
        } catch (InvalidNameException e) {
            return null;
        }
    }
}
