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
package io.metaroce.datapath.io;

import java.io.FileDescriptor;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;

/**
 * The JDK binding ({@link PrivateApiBinding}): a receive that leaves the source address in native memory, for the
 * UDP transports. {@link DatagramChannel#receive} returns the source as a new {@code InetSocketAddress} unless it
 * equals the previous datagram's, so a receiver fed by many entropy source ports allocates for nearly every datagram.
 * This calls the JDK's own native {@code recvfrom} wrapper instead, which writes the source as a
 * {@code struct sockaddr} where it is told, and the transport remembers each source it decoded.
 * <p>
 * Members bound, all of {@code java.base}:
 * <ul>
 *     <li>{@code sun.nio.ch.DatagramChannelImpl.receive0(FileDescriptor, long, int, long, boolean)}, a private static
 *         native method, which needs {@code --add-opens java.base/sun.nio.ch=ALL-UNNAMED} (the flag Aeron's driver
 *         asks for its selector optimisation);</li>
 *     <li>{@code sun.nio.ch.SelChImpl.getFD()}, public in a package {@code java.base} does not export, for the
 *         channel's descriptor object.</li>
 * </ul>
 * Checked against OpenJDK 17.0.15 and Temurin 25.0.3, whose signatures are the same: JDK {@value #OLDEST_CHECKED_JDK}
 * to {@value #NEWEST_CHECKED_JDK} is the range supported, and {@code JdkDatagramReceiveTest} fails on a JDK outside it.
 * The {@code sockaddr} layout read is Linux's on a little-endian machine. Where a member, the opening or Linux is
 * missing, {@link #unavailableReason()} says why and the transports call {@link DatagramChannel#receive}, the
 * supported path, after printing {@link PrivateApiBinding#fallbackLine()} once.
 */
public final class JdkDatagramReceive
{
    /**
     * Bytes reserved for the source {@code sockaddr}: at least the JDK's {@code SOCKETADDRESS} union (28 on Linux).
     */
    public static final int SOCKADDR_LENGTH = 32;

    /**
     * Address family of an IPv4 {@code sockaddr_in} on Linux.
     */
    public static final int AF_INET = 2;

    /**
     * Address family of an IPv6 {@code sockaddr_in6} on Linux.
     */
    public static final int AF_INET6 = 10;

    /**
     * The oldest JDK feature release whose members this binding was checked against.
     */
    public static final int OLDEST_CHECKED_JDK = 17;

    /**
     * The newest JDK feature release whose members this binding was checked against.
     */
    public static final int NEWEST_CHECKED_JDK = 25;

    /**
     * This binding, as the transports and the binding's tests see it.
     */
    public static final PrivateApiBinding BINDING = new Binding();

    private static final MethodHandle RECEIVE;
    private static final MethodHandle FILE_DESCRIPTOR;
    private static final String UNAVAILABLE_REASON;

    static
    {
        MethodHandle receive = null;
        MethodHandle fileDescriptor = null;
        String reason = null;
        try
        {
            if (!"Linux".equals(System.getProperty("os.name")) || ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN)
            {
                throw new UnsupportedOperationException("the sockaddr layout is read as on little-endian Linux");
            }
            final Class<?> channelImpl = Class.forName("sun.nio.ch.DatagramChannelImpl");
            final MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(channelImpl, MethodHandles.lookup());
            receive = lookup.findStatic(channelImpl, "receive0", MethodType.methodType(
                int.class, FileDescriptor.class, long.class, int.class, long.class, boolean.class));
            final Class<?> selectableChannel = Class.forName("sun.nio.ch.SelChImpl");
            fileDescriptor = MethodHandles.lookup()
                .findVirtual(selectableChannel, "getFD", MethodType.methodType(FileDescriptor.class))
                .asType(MethodType.methodType(FileDescriptor.class, DatagramChannel.class));
        }
        catch (final Throwable ex)
        {
            reason = ex instanceof IllegalAccessException ?
                "the JVM lacks --add-opens java.base/sun.nio.ch=ALL-UNNAMED (" + ex.getMessage() + ")" :
                ex.toString();
        }
        RECEIVE = receive;
        FILE_DESCRIPTOR = fileDescriptor;
        UNAVAILABLE_REASON = reason;
    }

    private JdkDatagramReceive()
    {
    }

    /**
     * Why {@link #receive} cannot run in this JVM.
     *
     * @return the reason, or null when it can.
     */
    public static String unavailableReason()
    {
        return UNAVAILABLE_REASON;
    }

    /**
     * The descriptor object of an open channel, which the channel keeps owning.
     *
     * @param channel the channel.
     * @return its descriptor.
     */
    public static FileDescriptor fileDescriptor(final DatagramChannel channel)
    {
        try
        {
            return (FileDescriptor)FILE_DESCRIPTOR.invokeExact(channel);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("no file descriptor for " + channel, ex);
        }
    }

    /**
     * Receive one datagram without blocking (the channel is non-blocking), as {@code recvfrom}.
     *
     * @param fd       the channel's descriptor.
     * @param address  where the datagram goes.
     * @param length   room at {@code address}; a longer datagram is truncated.
     * @param sockaddr {@link #SOCKADDR_LENGTH} bytes that receive the source.
     * @return bytes received, or a negative value when nothing was waiting.
     * @throws IOException when the socket reports an error.
     */
    public static int receive(final FileDescriptor fd, final long address, final int length, final long sockaddr)
        throws IOException
    {
        try
        {
            return (int)RECEIVE.invokeExact(fd, address, length, sockaddr, false);
        }
        catch (final IOException | RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IOException(ex);
        }
    }

    private static final class Binding implements PrivateApiBinding
    {
        public String name()
        {
            return "the JDK's recvfrom wrapper (sun.nio.ch.DatagramChannelImpl.receive0)";
        }

        public String checkedAgainst()
        {
            return "JDK " + OLDEST_CHECKED_JDK + " to " + NEWEST_CHECKED_JDK;
        }

        public String supportedPath()
        {
            return "receiving through DatagramChannel.receive, which allocates a source address per datagram " +
                "when sources alternate";
        }

        public String unavailableReason()
        {
            return UNAVAILABLE_REASON;
        }

        public String toString()
        {
            return name();
        }
    }
}
