#import "TokenFetcher.h"

@implementation TokenFetcher
+ (void)fetchFrom:(NSString *)url completion:(void (^)(NSString *_Nullable, NSError *_Nullable))completion {
  NSURLRequest *request = [NSURLRequest requestWithURL:[NSURL URLWithString:url]];
  NSURLSessionDataTask *task = [[NSURLSession sharedSession]
      dataTaskWithRequest:request
        completionHandler:^(NSData *data, NSURLResponse *response, NSError *error) {
          if (error) {
            completion(nil, error);
            return;
          }
          NSDictionary *body = [NSJSONSerialization JSONObjectWithData:data options:0 error:NULL];
          completion(body[@"VEHICLE_TOKEN_KEY"], nil);
        }];
  [task resume];
}
@end
