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

/**
 * A binding of members another project keeps private, through which the UDP transports make a datagram system call
 * that the JDK's public API offers only with an allocation, or not at all. It is the one place where the datapath
 * reaches into another project's internals, and there are two:
 * <ul>
 *     <li>{@link JdkDatagramReceive#BINDING}: the JDK's own {@code recvfrom} wrapper, for a receive that leaves the
 *         source address in native memory (both transports);</li>
 *     <li>{@link NativeDatagrams#BINDING}: Netty's {@code sendmmsg}, {@code recvmmsg} and {@code recvmsg}, with
 *         segmentation offload (the batched transport).</li>
 * </ul>
 * Each binding
 * <ul>
 *     <li>binds its members once, at class initialisation, into exact method and field handles held in
 *         {@code static final} fields, which the JIT inlines and which allocate nothing when called;</li>
 *     <li>names in its Javadoc every member it relies on, and the versions it was checked against
 *         ({@link #checkedAgainst()}): Netty's version is pinned in the root POM ({@code netty.version}), and the
 *         binding's tests fail the build on a class path or a JDK it was not checked against;</li>
 *     <li>fails soft: where a member, a module opening or the native library is missing, it reports why
 *         ({@link #unavailableReason()}) instead of throwing, and its user prints {@link #fallbackLine()} once and
 *         takes the {@link #supportedPath()}.</li>
 * </ul>
 * On Java 22 and later the Foreign Function and Memory API reaches the same system calls through a supported API,
 * which would replace a binding rather than add a path (docs/batched-io.md).
 */
public interface PrivateApiBinding
{
    /**
     * What is bound, for a person reading a log line.
     *
     * @return the project and its members, in a few words.
     */
    String name();

    /**
     * The versions of the other project the bound members were checked against.
     *
     * @return the versions, in a few words.
     */
    String checkedAgainst();

    /**
     * What runs instead where the members cannot be bound.
     *
     * @return the supported path, in a few words.
     */
    String supportedPath();

    /**
     * Why the members cannot be bound in this JVM.
     *
     * @return the reason, or null when they are bound.
     */
    String unavailableReason();

    /**
     * Whether the members are bound in this JVM.
     *
     * @return true when {@link #unavailableReason()} is null.
     */
    default boolean isAvailable()
    {
        return null == unavailableReason();
    }

    /**
     * The line a user of this binding prints, once, when it takes the supported path.
     *
     * @return the line, naming the binding, the reason and what runs instead.
     */
    default String fallbackLine()
    {
        return "metaroce: " + name() + " cannot be bound (" + unavailableReason() + "; checked against " +
            checkedAgainst() + "): " + supportedPath();
    }
}
