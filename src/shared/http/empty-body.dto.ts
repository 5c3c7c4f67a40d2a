/** The body of an action that takes none: any field in it is refused as unknown (400). */
export class EmptyBodyDto {}
