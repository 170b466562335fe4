package io.pgrepl.client.internal;

/** server_version text ("17.6", "16.10 (Debian 16.10-1)", "18beta1", "9.6.24") to server_version_num. */
public final class ServerVersion {
    private ServerVersion() {}

    public static int parse(String text) {
        int i = 0;
        int[] parts = new int[3];
        int n = 0;
        while (n < 3) {
            int start = i;
            int v = 0;
            while (i < text.length() && Character.isDigit(text.charAt(i)) && i - start < 6) {
                v = v * 10 + (text.charAt(i++) - '0');
            }
            if (i == start) break;
            parts[n++] = v;
            if (i < text.length() && text.charAt(i) == '.') i++;
            else break;
        }
        if (n == 0) return 0;
        // From 10 on the number is major*10000 + minor; before, major*10000 + minor*100 + patch.
        return parts[0] >= 10 ? parts[0] * 10000 + parts[1] : parts[0] * 10000 + parts[1] * 100 + parts[2];
    }
}
