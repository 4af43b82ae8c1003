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
package io.metaroce.systemtest.netns;

import java.nio.file.Path;
import java.util.List;

/**
 * Property names and defaults of the harness. Every setting is a system property of the JVM that builds topologies
 * (the test JVM), read when a {@link NetnsTopology.Context} is concluded.
 */
public final class NetnsConfiguration
{
    /**
     * Path of {@code netns.sh}; by default the harness looks for {@code system-tests/scripts/netns.sh} above the
     * working directory and above its own classes, then falls back to the copy inside its jar.
     */
    public static final String SCRIPT_PROP_NAME = "metaroce.netns.script";

    /**
     * Directory under which each topology gets a folder for the output of its processes.
     */
    public static final String OUTPUT_DIR_PROP_NAME = "metaroce.netns.output.dir";

    /**
     * Default of {@link #OUTPUT_DIR_PROP_NAME}, relative to the working directory (the module under Maven).
     */
    public static final String OUTPUT_DIR_DEFAULT = "target/netns";

    /**
     * When true, a test marked {@link RequiresNetns} fails instead of being skipped where topologies cannot be built
     * (not root, tools missing). Also true when the environment variable {@code CI} is {@code true}.
     */
    public static final String REQUIRED_PROP_NAME = "metaroce.netns.required";

    /**
     * Longest time, in milliseconds, that one {@code netns.sh} command may take before it is killed and reported.
     */
    public static final String COMMAND_TIMEOUT_MS_PROP_NAME = "metaroce.netns.command.timeout.ms";

    /**
     * Default of {@link #COMMAND_TIMEOUT_MS_PROP_NAME}.
     */
    public static final long COMMAND_TIMEOUT_MS_DEFAULT = 60_000;

    /**
     * Grace period, in milliseconds, between SIGTERM and SIGKILL when a process in a namespace is closed.
     */
    public static final long PROCESS_KILL_GRACE_MS = 2_000;

    /**
     * Options every JVM started in a namespace gets, before the caller's own: the Agrona export, the opening the
     * transports need (the NIO receive's native source address, the batched transport's descriptors) and a small,
     * single-threaded collector, because the test machine has two cores.
     */
    public static final List<String> JVM_OPTIONS = List.of(
        "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "-XX:+UseSerialGC");

    private NetnsConfiguration()
    {
    }

    /**
     * The script path set by {@link #SCRIPT_PROP_NAME}.
     *
     * @return the path, or null if the property is not set.
     */
    public static Path scriptPath()
    {
        final String value = System.getProperty(SCRIPT_PROP_NAME);
        return null == value || value.isBlank() ? null : Path.of(value);
    }

    /**
     * The output directory from {@link #OUTPUT_DIR_PROP_NAME}.
     *
     * @return the directory.
     */
    public static Path outputDir()
    {
        return Path.of(System.getProperty(OUTPUT_DIR_PROP_NAME, OUTPUT_DIR_DEFAULT)).toAbsolutePath();
    }

    /**
     * Must tests that need namespaces run here (fail rather than skip)?
     *
     * @return true if {@link #REQUIRED_PROP_NAME} is true or the environment variable {@code CI} is {@code true}.
     */
    public static boolean required()
    {
        return Boolean.getBoolean(REQUIRED_PROP_NAME) || "true".equalsIgnoreCase(System.getenv("CI"));
    }

    /**
     * The command timeout from {@link #COMMAND_TIMEOUT_MS_PROP_NAME}.
     *
     * @return the timeout in milliseconds.
     */
    public static long commandTimeoutMs()
    {
        return Long.getLong(COMMAND_TIMEOUT_MS_PROP_NAME, COMMAND_TIMEOUT_MS_DEFAULT);
    }

    /**
     * The class path for JVMs started in namespaces: the test class path under Surefire, else this JVM's.
     *
     * @return the class path.
     */
    public static String classPath()
    {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }
}
