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
package io.metaroce.client.exceptions;

/**
 * Base of the exceptions the client and the driver raise to their users.
 */
public class MetaRoceException extends RuntimeException
{
    private static final long serialVersionUID = 5364836427617062441L;

    /**
     * Create an exception with a message.
     *
     * @param message describing the failure.
     */
    public MetaRoceException(final String message)
    {
        super(message);
    }

    /**
     * Create an exception with a message and a cause.
     *
     * @param message describing the failure.
     * @param cause   of the failure.
     */
    public MetaRoceException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
