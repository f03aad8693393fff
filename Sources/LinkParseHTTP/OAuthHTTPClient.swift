// PLACEHOLDER: the AsyncHTTPClient sender comes here.
internal import AsyncHTTPClient
public import LinkParseOAuth
