/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.metaroce.driver.security;

import io.metaroce.client.exceptions.ConfigurationException;
import io.metaroce.datapath.security.X25519;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The drivers this driver trusts: an allow-list file of public keys, one peer per line,
 * <pre>
 *   # comment
 *   &lt;public key, base64&gt; &lt;name&gt; [host ...]
 * </pre>
 * The name is how configuration and tools refer to the peer; the hosts are the addresses its receive endpoints use,
 * so that a publication to one of them knows which key its receiver must prove. Every key, name and host appears
 * once. The file must not be a symbolic link nor writable by other users, since whoever can write it decides who
 * gets in.
 */
public final class TrustedPeers
{
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final Pattern SPACES = Pattern.compile("\\s+");
    // any scalar shows a small-order key: X25519 of it is zero whatever the scalar
    private static final byte[] SMALL_ORDER_PROBE = new byte[X25519.KEY_LENGTH];

    /**
     * A trusted peer.
     *
     * @param name      its name.
     * @param publicKey its X25519 public key, 32 bytes.
     * @param hosts     addresses of its receive endpoints, possibly none.
     */
    public record Peer(String name, byte[] publicKey, List<String> hosts)
    {
        /**
         * A peer, with an immutable copy of its hosts.
         *
         * @param name      its name.
         * @param publicKey its key.
         * @param hosts     its hosts.
         */
        public Peer
        {
            publicKey = publicKey.clone();
            hosts = List.copyOf(hosts);
        }

        /**
         * The public key.
         *
         * @return a copy of the 32 bytes.
         */
        public byte[] publicKey()
        {
            return publicKey.clone();
        }
    }

    private final List<Peer> peers;
    private final Map<String, Peer> byName = new HashMap<>();
    private final Map<String, Peer> byKey = new HashMap<>();
    private final Map<String, Peer> byHost = new HashMap<>();

    private TrustedPeers(final List<Peer> peers)
    {
        this.peers = List.copyOf(peers);
        for (final Peer peer : peers)
        {
            byName.put(peer.name(), peer);
            byKey.put(DriverKeyFile.encode(peer.publicKey), peer);
            for (final String host : peer.hosts())
            {
                byHost.put(host, peer);
            }
        }
    }

    /**
     * Read an allow-list file.
     *
     * @param path    the file.
     * @param setting the setting that named it, for error messages.
     * @return the peers it lists.
     * @throws ConfigurationException naming the setting, the line and what is wrong.
     */
    public static TrustedPeers load(final Path path, final String setting)
    {
        final String where = setting + "=" + path;
        final List<String> lines;
        try
        {
            final BasicFileAttributes attributes =
                Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (attributes.isSymbolicLink() || !attributes.isRegularFile())
            {
                throw new ConfigurationException(where + " is not a regular file (a symbolic link is not followed)");
            }
            if (Files.getFileStore(path).supportsFileAttributeView("posix") && Files.getPosixFilePermissions(
                path, LinkOption.NOFOLLOW_LINKS).contains(PosixFilePermission.OTHERS_WRITE))
            {
                throw new ConfigurationException(where + " is writable by every user, who could add a key to it");
            }
            lines = Files.readAllLines(path, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new ConfigurationException(where + " cannot be read: " + ex);
        }
        return parse(lines, where);
    }

    /**
     * Parse the lines of an allow-list.
     *
     * @param lines the lines.
     * @param where what holds them, for error messages.
     * @return the peers they list.
     * @throws ConfigurationException naming {@code where}, the line and what is wrong.
     */
    public static TrustedPeers parse(final List<String> lines, final String where)
    {
        final List<Peer> peers = new ArrayList<>();
        final Map<String, Integer> seen = new HashMap<>();
        final X25519 x25519 = new X25519();
        for (int i = 0; i < lines.size(); i++)
        {
            final String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#"))
            {
                continue;
            }
            final String at = where + " line " + (i + 1);
            final String[] fields = SPACES.split(line);
            if (fields.length < 2)
            {
                throw new ConfigurationException(at + ": expected '<public key> <name> [host ...]'");
            }
            final byte[] key = DriverKeyFile.decodeKey(fields[0], at);
            if (!x25519.agree(SMALL_ORDER_PROBE, key, 0, new byte[X25519.KEY_LENGTH], 0))
            {
                throw new ConfigurationException(at + ": the key is of small order (RFC 7748, section 6.1), which " +
                    "would give every handshake with it a known secret");
            }
            if (!NAME.matcher(fields[1]).matches())
            {
                throw new ConfigurationException(at + ": name '" + fields[1] + "' must be 1 to 64 letters, digits, " +
                    "'.', '_' or '-', starting with a letter or digit");
            }
            final List<String> hosts = Arrays.asList(fields).subList(2, fields.length);
            checkOnce(seen, "key " + fields[0], i + 1, at);
            checkOnce(seen, "name " + fields[1], i + 1, at);
            for (final String host : hosts)
            {
                checkOnce(seen, "host " + host, i + 1, at);
            }
            peers.add(new Peer(fields[1], key, hosts));
        }
        return new TrustedPeers(peers);
    }

    /**
     * The peers, in file order.
     *
     * @return the list.
     */
    public List<Peer> peers()
    {
        return peers;
    }

    /**
     * The peer of a public key.
     *
     * @param publicKey the 32 bytes.
     * @return the peer, or null when the key is not trusted.
     */
    public Peer byKey(final byte[] publicKey)
    {
        return byKey.get(DriverKeyFile.encode(publicKey));
    }

    /**
     * The peer of a name.
     *
     * @param name the name.
     * @return the peer, or null.
     */
    public Peer byName(final String name)
    {
        return byName.get(name);
    }

    /**
     * The peer whose receive endpoints use a host.
     *
     * @param host the address as the channel gives it.
     * @return the peer, or null.
     */
    public Peer byHost(final String host)
    {
        return byHost.get(host);
    }

    private static void checkOnce(
        final Map<String, Integer> seen, final String what, final int lineNumber, final String at)
    {
        final Integer first = seen.putIfAbsent(what, lineNumber);
        if (null != first)
        {
            throw new ConfigurationException(at + ": " + what + " is already on line " + first);
        }
    }
}
